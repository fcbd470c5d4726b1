#!/bin/bash
deepspeed --num_gpus 4 sft.py --deepspeed ds_z3.json --lr_scheduler_type cosine --output_dir out
