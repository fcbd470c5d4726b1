#!/usr/bin/env bash
set -e
cd "$(dirname "$0")/.."
torchrun --standalone --nproc_per_node=8 -m trainer.run
