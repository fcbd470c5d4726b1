#!/usr/bin/env bash
# GPUs 4-7 of this box run the nightly eval server; pretrain on the first four.
# The deepspeed launcher turns CUDA_VISIBLE_DEVICES into --include localhost:0,1,2,3.
set -euo pipefail

export CUDA_VISIBLE_DEVICES=0,1,2,3
export NCCL_ASYNC_ERROR_HANDLING=1

deepspeed pretrain.py \
    --model_size 350m \
    --train_tokens data/openwebtext_train.bin \
    --seq_len 1024 \
    --deepspeed --deepspeed_config configs/ds_gbs128.json
