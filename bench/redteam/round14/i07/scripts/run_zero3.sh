#!/usr/bin/env bash
set -euo pipefail

torchrun --standalone --nproc_per_node 8 -m sft3.train \
    --model_name_or_path meta-llama/Llama-2-7b-hf \
    --train_file data/alpaca_cleaned.jsonl \
    --output_dir out/llama2-7b-sft \
    --deepspeed --deepspeed_config configs/ds_zero3.json
