#!/bin/bash
cd "$(dirname "$0")/.."
torchrun --nproc_per_node=4 tools/train.py
