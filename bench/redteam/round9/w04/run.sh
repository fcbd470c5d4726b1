#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
torchrun --standalone --nproc_per_node 4 train.py --epochs 30 --batch-size 256
