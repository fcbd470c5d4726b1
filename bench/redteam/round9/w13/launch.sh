#!/bin/bash
set -euo pipefail
export NCCL_IB_HCA=mlx5
deepspeed --hostfile hostfile --master_addr gpu-node-01 --master_port 29500 \
    train_vit.py --preset zero2 --epochs 30
