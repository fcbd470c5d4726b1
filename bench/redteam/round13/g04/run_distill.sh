#!/usr/bin/env bash
# Distil RoBERTa-large (fine-tuned on MNLI) into a 6-layer student on one 8-GPU node.
torchrun --standalone --nproc_per_node 8 distill.py \
    --teacher checkpoints/roberta-large-mnli \
    --student distilroberta-base \
    --train-file data/mnli_train.jsonl \
    --epochs 5 --batch-size 32 --temperature 2.0 --alpha 0.7
