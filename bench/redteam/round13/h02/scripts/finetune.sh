#!/usr/bin/env bash
# ZeRO-2 + CPU offload finetune of the 6.7B model on one box.
#   NUM_GPUS=4 scripts/finetune.sh     # half a box
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NUM_GPUS=${NUM_GPUS:-8}
source scripts/env.sh
configure_host "$NUM_GPUS"

deepspeed --num_gpus "$NUM_GPUS" finetune.py \
    --deepspeed_config configs/zero2_offload.json \
    --model facebook/opt-6.7b \
    --data data/instructions.jsonl \
    --epochs 3
