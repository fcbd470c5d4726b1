#!/bin/bash
# Full-parameter SFT of Llama-3.1-8B with the HF Trainer.
#   ZERO_STAGE=2 ./run_sft.sh     # fits on 8x H100 only with short sequences
set -euo pipefail

ZERO_STAGE=${ZERO_STAGE:-3}
NUM_GPUS=${NUM_GPUS:-8}
MODEL=${MODEL:-meta-llama/Llama-3.1-8B}
OUT=outputs/llama8b-sft-z${ZERO_STAGE}

deepspeed --num_gpus "$NUM_GPUS" sft.py \
    --model_name_or_path "$MODEL" \
    --data_path data/alpaca_cleaned.json \
    --deepspeed configs/ds_z${ZERO_STAGE}.json \
    --output_dir "$OUT" \
    --bf16 True \
    --per_device_train_batch_size 4 \
    --gradient_accumulation_steps 8 \
    --learning_rate 2e-5 \
    --lr_scheduler_type cosine \
    --warmup_ratio 0.03 \
    --num_train_epochs 3 \
    --model_max_length 2048 \
    --gradient_checkpointing True \
    --save_strategy epoch \
    --logging_steps 10 \
    --report_to none
