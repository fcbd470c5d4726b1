#!/bin/bash
# GPT-2 medium pretraining on OpenWebText, 8 GPUs, ZeRO-1 + bf16.
DATA=${DATA:-data/openwebtext/train.bin}

deepspeed --num_gpus 8 pretrain.py \
    --deepspeed --deepspeed_config configs/ds_zero1.json \
    --data_path "$DATA" \
    --seq_len 1024 \
    --epochs 1 \
    --save_dir checkpoints/gpt2-medium
