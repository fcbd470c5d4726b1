#!/usr/bin/env bash
set -euo pipefail
accelerate launch --config_file configs/ds_8gpu.yaml train.py
