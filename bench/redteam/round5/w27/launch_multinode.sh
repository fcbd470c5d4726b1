#!/bin/bash
# on each node: bash launch_multinode.sh <head-host>
torchrun --nnodes=2:2 --nproc_per_node=8 --max-restarts=0 \
  --rdzv_backend=c10d --rdzv_endpoint=$1:29400 --rdzv_id=exp42 \
  train.py
