#!/usr/bin/env bash
set -euo pipefail
python -m torch.distributed.run --standalone --nproc_per_node 8 train_fsdp.py
