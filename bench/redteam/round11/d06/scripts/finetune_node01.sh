#!/usr/bin/env bash
# gpu-node-02 is reserved for the inference demo this month: fine-tune on gpu-node-01 only.
# Thread settings for the CPU Adam are in .deepspeed_env (8 ranks x 8 threads = 64 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

deepspeed --hostfile hostfile --include gpu-node-01 --master_port 29611 \
    finetune_asr.py \
    --deepspeed --deepspeed_config configs/zero2_offload.json \
    --manifest data/train_manifest.jsonl \
    --epochs 10
