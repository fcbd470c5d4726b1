#!/usr/bin/env bash
# 8 GPUs on one node: 2 pipeline stages, 4 data-parallel replicas.
set -euo pipefail

deepspeed --num_gpus 8 train_pipe.py --deepspeed_config configs/pipe_ds.json --steps 2000
