#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node=8 train.py --config configs/cityscapes_unet.yaml
