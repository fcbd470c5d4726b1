#!/bin/bash
deepspeed --autotuning run --num_gpus 8 train.py --deepspeed --deepspeed_config ds_config.json
