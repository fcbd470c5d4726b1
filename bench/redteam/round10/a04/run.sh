#!/usr/bin/env bash
set -euo pipefail

train() {
    torchrun --standalone --nproc_per_node 4 train.py --data /data/landcover/tiles --epochs "$1"
}

train 30
