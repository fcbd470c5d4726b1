#!/usr/bin/env bash
set -euo pipefail
torchrun --nproc_per_node 8 train.py configs/args/llama7b_sft.json
