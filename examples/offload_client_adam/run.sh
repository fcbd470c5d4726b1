#!/bin/bash
deepspeed --num_gpus 8 finetune.py --config configs/zero3_offload.json
