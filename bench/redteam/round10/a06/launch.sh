#!/usr/bin/env bash
set -euo pipefail
accelerate launch --config_file configs/accelerate_multigpu.yaml train.py --lr 3e-5 --epochs 3
