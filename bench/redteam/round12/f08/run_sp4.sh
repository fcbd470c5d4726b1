#!/usr/bin/env bash
# 8 GPUs = 2 data-parallel replicas x 4-way Ulysses sequence parallelism.
# Global batch: 1 micro x 4 accumulation x 2 replicas = 8 sequences of 128k tokens.
set -euo pipefail
deepspeed --num_gpus 8 train_longctx.py --ds_config configs/ds_sp4.json --seq_len 131072
