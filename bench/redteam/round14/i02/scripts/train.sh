#!/usr/bin/env bash
# Single-node ResNet-50 run on 8 GPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

torchrun --standalone --nproc_per_node 8 -m imgcls.train --config configs/resnet50.yaml "$@"
