#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node 4 -m kwspot.train --config configs/kws_small.yaml
