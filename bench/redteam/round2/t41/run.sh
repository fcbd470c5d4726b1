#!/bin/bash
export OMP_NUM_THREADS=12
torchrun --nproc_per_node=4 train.py
