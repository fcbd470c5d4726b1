#!/usr/bin/env bash
set -euo pipefail
mkdir -p exp
torchrun --standalone --nproc_per_node=4 train_ctc.py --config conf/librispeech_100.yaml
