#!/usr/bin/env bash
set -euo pipefail
export WANDB_DISABLED=true
torchrun --standalone --nproc_per_node 8 train.py --config configs/sft_llama3_8b.yaml
