#!/usr/bin/env bash
# Single node, 4 GPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node 4 train.py --arch resnet18 --batch-size 128 --epochs 60 --amp --out runs/kws_r18
