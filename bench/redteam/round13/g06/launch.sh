#!/usr/bin/env bash
set -euo pipefail
accelerate launch --config_file configs/zero2_8gpu.yaml sft.py \
    --model_name_or_path mistralai/Mistral-7B-v0.1 \
    --dataset_name HuggingFaceH4/ultrachat_200k \
    --output_dir runs/mistral-sft \
    --per_device_batch_size 4 \
    --checkpointing_steps 500 \
    --max_train_steps 6000
