#!/usr/bin/env bash
# GPT-2 124M on one 8xA100 node.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-/scratch/openwebtext}
deepspeed --num_gpus 8 train.py --data_path "$DATA" --output_dir runs/gpt2-124m-8gpu --epochs 2
