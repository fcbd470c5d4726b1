#!/usr/bin/env bash
# ViT-B/16 MAE, one 8-GPU node: 64 images per GPU x 8 GPUs = the 512 global batch of configs/ds_zero2.json.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=output_dir/mae_vitb_$(date +%Y%m%d)
mkdir -p "$OUT"
deepspeed --num_gpus 8 main_pretrain.py --deepspeed --deepspeed_config configs/ds_zero2.json --batch_size 64 --data_path /datasets/imagenet --output_dir "$OUT" --log_dir "$OUT"
