#!/bin/bash
deepspeed --num_gpus 4 train.py --deepspeed --deepspeed_config configs/ds.json
