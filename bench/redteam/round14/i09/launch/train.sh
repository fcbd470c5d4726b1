#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node 4 -m summ.train --config configs/t5_base_cnndm.yaml
