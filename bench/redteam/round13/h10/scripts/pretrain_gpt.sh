#!/bin/bash
# GPT-1.3B pretraining, one 8-GPU node. Sizes are overridable from the environment:
#   MBS=2 GAS=4 bash scripts/pretrain_gpt.sh
set -ex

MBS=${MBS:-4}
GAS=${GAS:-2}
ZERO_STAGE=${ZERO_STAGE:-1}
NGPUS=${NGPUS:-8}
LR=${LR:-2e-4}
TRAIN_ITERS=${TRAIN_ITERS:-20000}

OUTPUT_DIR=output/gpt1.3b_mbs${MBS}_gas${GAS}_z${ZERO_STAGE}
CONFIG_JSON=${OUTPUT_DIR}/ds_config.json
mkdir -p "$OUTPUT_DIR"

cat <<EOT > $CONFIG_JSON
{
  "train_micro_batch_size_per_gpu": "$MBS",
  "gradient_accumulation_steps": $GAS,
  "steps_per_print": 10,
  "gradient_clipping": 1.0,
  "zero_optimization": {
    "stage": $ZERO_STAGE,
    "overlap_comm": true
  },
  "bf16": {
    "enabled": true
  },
  "wall_clock_breakdown": false
}
EOT

deepspeed --num_gpus "$NGPUS" pretrain_gpt.py \
    --deepspeed \
    --deepspeed_config "$CONFIG_JSON" \
    --data-path /data/pile/pile_text_document.bin \
    --lr "$LR" \
    --train-iters "$TRAIN_ITERS" \
    --save "$OUTPUT_DIR/checkpoints" 2>&1 | tee "$OUTPUT_DIR/train.log"
