#!/usr/bin/env bash
# 4 x L40S workstation, 64 cores: Lightning starts the 4 ranks itself.
set -euo pipefail
export OMP_NUM_THREADS=16   # DeepSpeedCPUAdam threads per rank (64 cores / 4 ranks)
python cli.py fit --config configs/fit_qwen1b5.yaml
