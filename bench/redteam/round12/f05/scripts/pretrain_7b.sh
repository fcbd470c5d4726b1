#!/usr/bin/env bash
set -euo pipefail
deepspeed --num_gpus 8 pretrain.py --model 7b --data data/pile_train.bin --seq_len 2048
