#!/bin/bash
deepspeed --num_gpus 8 finetune.py --output_dir out --learning_rate 2e-5 --deepspeed configs/ds_z2.json
