#!/usr/bin/env bash
# Train the keyword-spotting model on the 4-GPU box.
set -euo pipefail
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node 4 train.py
