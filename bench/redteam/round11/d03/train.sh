#!/usr/bin/env bash
# Pretraining a 1.3B decoder on the H100 box. The base config is shared with the V100 cluster
# (fp16 there); per-hardware overrides live in configs/overrides/.
set -euo pipefail

OVERRIDE=${OVERRIDE:-configs/overrides/h100.json}

deepspeed --num_gpus 8 pretrain.py \
    --ds-base configs/base.json \
    --ds-override "$OVERRIDE" \
    --data /data/pile/tokens_2048.bin \
    --steps 100000
