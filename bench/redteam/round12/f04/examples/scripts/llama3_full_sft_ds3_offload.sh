#!/bin/bash
# Full-parameter SFT of Llama-3-8B on one 8 x A800 node with ZeRO-3 + CPU offload.
# CPU threads per rank are set by tuner/extras/env.py (cores / LOCAL_WORLD_SIZE).
set -x
NPROC_PER_NODE=8
MASTER_PORT=${MASTER_PORT:-29501}

torchrun --nproc_per_node $NPROC_PER_NODE --master_port $MASTER_PORT train.py \
    --model_name_or_path meta-llama/Meta-Llama-3-8B-Instruct \
    --dataset data/identity_alpaca.json \
    --cutoff_len 2048 \
    --deepspeed examples/deepspeed/ds_z3_offload_config.json \
    --output_dir saves/llama3-8b/full/sft \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 8 \
    --learning_rate 1e-5 \
    --num_train_epochs 3 \
    --lr_scheduler_type cosine \
    --warmup_ratio 0.1 \
    --bf16 \
    --logging_steps 10 \
    --save_steps 500 \
    --gradient_checkpointing
