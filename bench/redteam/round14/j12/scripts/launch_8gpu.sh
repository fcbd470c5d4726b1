#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
accelerate launch --multi_gpu --num_processes 8 --num_machines 1 --mixed_precision bf16 train.py --per_device_batch_size 64 --output_dir runs/food101_r50_8gpu
