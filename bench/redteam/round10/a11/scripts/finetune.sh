#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node 8 train.py \
    --model_name EleutherAI/pythia-1.4b \
    --train_file data/alpaca.json \
    --output_dir out/pythia-1.4b-alpaca
