#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node=4 train_ddpm.py --data data/celeba64 --epochs 400 --out runs/ddpm-celeba64
