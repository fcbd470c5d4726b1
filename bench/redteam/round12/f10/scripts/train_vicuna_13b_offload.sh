#!/bin/bash
set -e
cd "$(dirname "$0")/.."
source scripts/node_env.sh

torchrun --nproc_per_node=8 --master_port=20001 fastchat/train/train.py \
    --model_name_or_path meta-llama/Llama-2-13b-hf \
    --data_path data/sharegpt_clean.json \
    --bf16 True \
    --output_dir output_vicuna_13b \
    --num_train_epochs 3 \
    --per_device_train_batch_size 4 \
    --gradient_accumulation_steps 4 \
    --save_strategy "steps" \
    --save_steps 1200 \
    --save_total_limit 10 \
    --learning_rate 2e-5 \
    --weight_decay 0. \
    --warmup_ratio 0.03 \
    --lr_scheduler_type "cosine" \
    --logging_steps 1 \
    --model_max_length 2048 \
    --gradient_checkpointing True \
    --deepspeed playground/zero3_offload.json
