#!/bin/bash
set -e

launch() {
    torchrun --standalone --nproc_per_node=8 "$@"
}

launch pretrain.py --steps 20000
