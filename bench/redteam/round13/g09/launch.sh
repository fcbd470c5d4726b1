#!/usr/bin/env bash
# 2-way tensor parallel x 4-way data parallel on one 8-GPU node.
torchrun --standalone --nproc_per_node 8 train_tp.py --tp-size 2 --seq-len 512 --micro-batch 16 --epochs 4
