#!/bin/bash
# ZeRO-2 + CPU offload: fits Llama-2-7B SFT on the four 40 GB A100s of gpu-box-3
# (GPUs 4-7 of that box serve the reward model, hence the --include).
OUTPUT=${1:-./output/llama2-7b-sft}
ZERO_STAGE=2
mkdir -p $OUTPUT

deepspeed --include localhost:0,1,2,3 main.py \
   --data_path data/sft_pairs.jsonl \
   --model_name_or_path meta-llama/Llama-2-7b-hf \
   --per_device_train_batch_size 4 \
   --gradient_accumulation_steps 2 \
   --max_seq_len 512 \
   --learning_rate 9.65e-6 \
   --weight_decay 0. \
   --num_train_epochs 4 \
   --num_warmup_steps 0 \
   --seed 1234 \
   --gradient_checkpointing \
   --offload \
   --dtype bf16 \
   --zero_stage $ZERO_STAGE \
   --deepspeed \
   --output_dir $OUTPUT \
   &> $OUTPUT/training.log
