#!/usr/bin/env bash
set -euo pipefail

# launch NGPUS [finetune.py options...]
launch() {
    local ngpus=$1
    shift
    deepspeed --num_gpus "$ngpus" finetune.py --deepspeed_config ds_config.json "$@"
}

launch 4 --epochs 2 --lora-r 32
