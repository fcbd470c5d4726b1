#!/bin/sh
# BAD: ZeRO-Offload with DeepSpeedCPUAdam, 2 ranks, no core binding and OMP_NUM_THREADS unset:
# each rank's OpenMP pool takes all 32 cores (64 threads on 32 cores).
# Fix: deepspeed --num_gpus 2 --bind_cores_to_rank ds_train.py
cd "$(dirname "$0")"
deepspeed --num_gpus 2 ds_train.py
