#!/bin/bash
# run on each of the 2 nodes: NODE_RANK=0|1 MASTER=host0 bash launch/node.sh
torchrun --nnodes=2 --node_rank=$NODE_RANK --nproc_per_node=8 \
  --rdzv_backend=c10d --rdzv_endpoint=$MASTER:29400 fsdp_train.py
