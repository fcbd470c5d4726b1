#!/bin/sh
# BAD: torchrun exports OMP_NUM_THREADS=1 to every rank: DeepSpeedCPUAdam runs on one core per rank.
# Fix: OMP_NUM_THREADS=16 torchrun --nproc_per_node 2 ds_train.py   (cores / ranks)
cd "$(dirname "$0")"
torchrun --standalone --nproc_per_node 2 ds_train.py
