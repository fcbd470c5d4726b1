#!/bin/bash
set -euo pipefail
deepspeed --num_gpus 8 --module lmtrain.cli --deepspeed_config configs/ds_auto.json
