#!/bin/bash
set -euo pipefail
cd "$(dirname "$0")/.."
python -m torch.distributed.run --nnodes=1 --nproc_per_node=4 pretrain.py --data data/tokens.bin
