#!/usr/bin/env bash
# Full-shard fine-tuning of Llama-2-7B on one 8-GPU node.
set -euo pipefail

export NCCL_ASYNC_ERROR_HANDLING=1
export TOKENIZERS_PARALLELISM=false

torchrun --standalone --nproc_per_node 8 train.py \
    --model-name meta-llama/Llama-2-7b-hf \
    --data-path data/alpaca_tokenized.pt \
    --sharding full \
    --epochs 3 \
    --batch-size 4 \
    --lr 2e-5
