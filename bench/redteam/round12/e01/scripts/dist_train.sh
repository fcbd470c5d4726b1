#!/usr/bin/env bash
# usage: scripts/dist_train.sh CONFIG [GPUS]
set -euo pipefail
CONFIG=$1
GPUS=${2:-8}
torchrun --standalone --nproc_per_node="$GPUS" train.py --config "$CONFIG" --work-dir "work_dirs/$(basename "$CONFIG" .yaml)"
