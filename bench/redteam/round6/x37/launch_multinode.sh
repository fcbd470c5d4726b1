#!/bin/bash
set -e
deepspeed --hostfile hostfile --bind_cores_to_rank --master_addr node-a \
    train.py --deepspeed_config ds_offload.json
