#!/usr/bin/env bash
# One node, 8 x A100-80GB. Optimizer states live in host RAM (ZeRO-Offload), see configs/zero2_offload.json.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=${MODEL:-/models/llama-2-7b-hf}
export NCCL_DEBUG=WARN

torchrun --standalone --nproc_per_node 8 train.py \
    --model_name_or_path "$MODEL" \
    --train_file data/alpaca_cleaned.jsonl \
    --output_dir checkpoints/sft-llama7b \
    --gradient_checkpointing \
    --deepspeed --deepspeed_config configs/zero2_offload.json
