#!/usr/bin/env bash
set -euo pipefail

CONFIG=${CONFIG:-configs/sft_qwen.yaml}
torchrun --standalone --nproc_per_node 4 -m chatft.train --config "$CONFIG"
