#!/bin/sh
# BAD (report 1's likely trigger): mpirun starts train.py twice; without mpi4py, Lightning sees no
# MPI world and each copy's Trainer(devices=2) spawns its own rank 1: 2 worlds on both GPUs.
# launch.sh reproduces the same thing without MPI (the GPU machine has mpi4py, so there Lightning
# would join mpirun's world).
cd "$(dirname "$0")"
mpirun -np 2 python3 train.py
