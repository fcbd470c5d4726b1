#!/bin/sh
# BAD: starts train.py once per GPU, as a per-GPU cluster wrapper (or `mpirun -np 2` without
# mpi4py) does. No LOCAL_RANK is set, so each copy's Trainer(devices=2) spawns its own rank 1:
# 4 processes, 2 independent worlds, 2 processes on each GPU.
cd "$(dirname "$0")"
for gpu in 0 1; do
    python3 train.py &
done
wait
