#!/bin/bash
export OMP_NUM_THREADS=8
deepspeed --hostfile hostfile --master_port 29600 train.py --deepspeed --deepspeed_config zero3.json
