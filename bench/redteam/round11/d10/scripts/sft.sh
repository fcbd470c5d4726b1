#!/usr/bin/env bash
# Stage 2: instruction tuning with the HF Trainer (cosine schedule from the command line).
set -euo pipefail
torchrun --standalone --nproc_per_node 8 sft.py \
    --model_name_or_path checkpoints/codelm-1b-pt/hf \
    --data_path data/code_instruct.jsonl \
    --output_dir checkpoints/codelm-1b-sft \
    --deepspeed ds/zero2_sft.json \
    --bf16 True \
    --per_device_train_batch_size 8 \
    --gradient_accumulation_steps 2 \
    --learning_rate 2e-5 \
    --lr_scheduler_type cosine \
    --warmup_ratio 0.03 \
    --num_train_epochs 3 \
    --logging_steps 20 \
    --save_strategy epoch
