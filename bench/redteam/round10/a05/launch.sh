#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node 8 train.py --data /data/crops/v3 --epochs 40 --batch-size 256
