#!/usr/bin/env bash
set -euo pipefail
torchrun --standalone --nproc_per_node=8 train.py --data data/era5_t2m_1deg.npy --epochs 30 --out runs/t2m
