#!/bin/bash
# Step 1 SFT of Llama-2-7b on one node of 8 GPUs, ZeRO-3.
OUTPUT=${1:-./output_step1_llama2_7b}
ZERO_STAGE=3
mkdir -p $OUTPUT

deepspeed --num_gpus 8 main.py \
   --data_path data/sft.pt \
   --model_name_or_path meta-llama/Llama-2-7b-hf \
   --per_device_train_batch_size 4 \
   --per_device_eval_batch_size 4 \
   --learning_rate 9.65e-6 \
   --num_train_epochs 1 \
   --gradient_accumulation_steps 1 \
   --zero_stage $ZERO_STAGE \
   --output_dir $OUTPUT \
   &> $OUTPUT/training.log
