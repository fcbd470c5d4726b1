#!/bin/bash
torchrun --standalone --nproc_per_node 8 train_lm.py --data 'shards/*.jsonl' --fmt JsonlTokens
