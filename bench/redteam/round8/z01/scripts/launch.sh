#!/usr/bin/env bash
set -euo pipefail

run_ddp() {
    local gpus="$1"
    shift
    torchrun --standalone --nproc_per_node "$gpus" -m vision.train
}

pip install -e . >/dev/null
run_ddp 4
