#!/bin/bash
set -e
NGPU=8
MICRO=4
GAS=2
GLOBAL=$((MICRO * GAS * NGPU))
mkdir -p generated
sed -e "s/\"__GLOBAL_BATCH__\"/$GLOBAL/" -e "s/\"__MICRO_BATCH__\"/$MICRO/" -e "s/\"__GAS__\"/$GAS/" \
  configs/ds_config.template.json > generated/ds_config.json
deepspeed --num_gpus $NGPU train.py --deepspeed_config generated/ds_config.json
