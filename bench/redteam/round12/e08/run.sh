#!/usr/bin/env bash
# CIFAR-10, 4000 labels, 4 GPUs
set -euo pipefail
torchrun --standalone --nproc_per_node=4 train_semi.py --num-labeled 4000 --batch-size 16 --mu 7
