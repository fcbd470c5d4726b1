#!/usr/bin/env bash
# Full fine-tune of Mistral-7B with ZeRO-3, our own loop (no HF Trainer).
set -euo pipefail

deepspeed --num_gpus 8 train.py \
    --deepspeed --deepspeed_config configs/zero3.json \
    --model mistralai/Mistral-7B-v0.1 \
    --train-file data/sft_train.jsonl \
    --val-file data/sft_val.jsonl \
    --micro-batch-size 2 \
    --grad-accum 8 \
    --epochs 2
