#!/bin/bash
deepspeed --hostfile hostfile --master_addr worker-1 --master_port 29500 train.py --deepspeed_config ds_config.json
