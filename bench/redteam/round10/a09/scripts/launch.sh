#!/usr/bin/env bash
set -euo pipefail
python -m torch.distributed.run --standalone --nproc_per_node 4 train.py --data data/enwik8 --max-steps 20000
