#!/bin/bash
# 1 node, 4 GPUs
torchrun --nnodes=1 --nproc_per_node=4 train.py --deepspeed_config ds_zero2_offload.json
