#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node=4 --no-python scripts/bind_gpu.sh --epochs 100
