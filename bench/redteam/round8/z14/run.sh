#!/usr/bin/env bash
set -euo pipefail

start() {
    torchrun --standalone --nnodes 1 --nproc_per_node "$1" pretrain.py
}

start 4
