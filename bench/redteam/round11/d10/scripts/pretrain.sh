#!/usr/bin/env bash
# Stage 1: continued pretraining on the code corpus, our own DeepSpeed loop.
set -euo pipefail
deepspeed --num_gpus 8 pretrain.py \
    --deepspeed --deepspeed_config ds/pretrain_z1.json \
    --corpus /data/code/stack_py_tok.bin --steps 60000
