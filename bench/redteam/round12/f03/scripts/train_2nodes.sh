#!/bin/bash
# Run once on each node:   bash scripts/train_2nodes.sh <node_rank>
# (global batch 128 sequences, as in the appendix table)
set -e
NODE_RANK=${1:-0}
NNODES=2
GPUS_PER_NODE=8
MASTER_ADDR=${MASTER_ADDR:-10.10.0.21}
MASTER_PORT=29500
WORLD_SIZE=$((NNODES * GPUS_PER_NODE))
echo "node ${NODE_RANK}/${NNODES}, world size ${WORLD_SIZE}"

torchrun --nnodes $NNODES --node_rank $NODE_RANK --nproc_per_node $GPUS_PER_NODE \
    --master_addr $MASTER_ADDR --master_port $MASTER_PORT \
    train_sft.py \
    --data_path data/alpaca_cleaned.json \
    --output_dir out/mistral-7b-sft
