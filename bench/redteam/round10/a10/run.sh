#!/usr/bin/env bash
set -euo pipefail
deepspeed --num_gpus 8 train.py \
    --deepspeed --deepspeed_config configs/zero3.json \
    --model Qwen/Qwen2.5-1.5B \
    --data data/sft_mix.jsonl \
    --output_dir out/qwen-1.5b-sft
