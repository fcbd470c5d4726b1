#!/bin/bash
deepspeed --num_gpus 8 finetune.py \
  --output_dir out \
  --per_device_train_batch_size 4 \
  --gradient_accumulation_steps 8 \
  --learning_rate 2e-5 \
  --deepspeed configs/ds_z2.json
