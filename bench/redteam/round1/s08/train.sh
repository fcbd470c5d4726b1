#!/bin/sh
torchrun --nnodes 1 --nproc_per_node 4 main.py --epochs 90 --lr 0.4
