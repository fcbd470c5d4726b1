#!/bin/bash
# usage: NODE_RANK=0 MASTER=10.0.0.1 ./launch_node.sh
accelerate launch --config_file configs/accelerate_ds.yaml \
    --machine_rank "${NODE_RANK}" --main_process_ip "${MASTER}" --main_process_port 29500 \
    sft.py --model mistralai/Mistral-7B-v0.1
