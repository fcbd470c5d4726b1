#!/bin/bash
exec torchrun --nnodes=1 --nproc_per_node=8 train_seg.py
