#!/bin/bash
# Conformer-CTC on LibriSpeech 960h, one node with 4 GPUs.
set -e
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node=4 main.py \
    --manifest data/manifests/train_960.jsonl \
    --val-manifest data/manifests/dev_clean.jsonl \
    --epochs 60 --batch-size 32 --lr 1e-3
