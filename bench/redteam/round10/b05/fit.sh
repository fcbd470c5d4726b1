#!/usr/bin/env bash
# Lightning starts the 4 ranks itself (no torchrun); 8 host threads each for the CPU Adam step.
set -euo pipefail

export OMP_NUM_THREADS=8
python cli.py fit --config configs/lm_1b_offload.yaml
