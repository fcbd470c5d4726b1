#!/usr/bin/env bash
set -euo pipefail
export NCCL_ASYNC_ERROR_HANDLING=1
torchrun --standalone --nproc_per_node=8 finetune.py --data /datasets/imagenet --epochs 30 --batch-size 64
