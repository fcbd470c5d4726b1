#!/usr/bin/env bash
# Half of gpu-a and gpu-b (GPUs 0-3); the other halves run the nightly evals.
# The launcher exports .deepspeed_env (in the repo root) on every node it starts ranks on.
set -euo pipefail
cd "$(dirname "$0")/.."

deepspeed --hostfile hostfile \
    --include "gpu-a:0,1,2,3@gpu-b:0,1,2,3" \
    --master_addr gpu-a --master_port 29500 \
    train_ranker.py \
    --deepspeed --deepspeed_config configs/ds_offload.json \
    --train-dir /shared/ctr/train --epochs 4
