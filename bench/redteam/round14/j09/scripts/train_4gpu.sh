#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node 4 train.py --deepspeed configs/ds_zero2.json --output_dir runs/deberta-reviews-4gpu
