#!/bin/bash
#   ViT-S/16 on ImageNet-100, single node.
torchrun --nnodes 1 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint localhost:0 \
    train.py --data /data/imagenet100 --epochs 100 --batch-size 256 --eval-every 5
