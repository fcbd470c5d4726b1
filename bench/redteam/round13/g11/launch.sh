#!/usr/bin/env bash
accelerate launch --multi_gpu --num_processes 4 --mixed_precision bf16 distill.py \
    --teacher textattack/bert-large-uncased-SST-2 \
    --student google/bert_uncased_L-4_H-512_A-8 \
    --epochs 3 --batch-size 64
