#!/usr/bin/env bash
# usage: scripts/pretrain.sh {350m|1b|7b}
set -euo pipefail

MODEL_SIZE=${1:?model size}

case "$MODEL_SIZE" in
    350m)
        NGPU=2
        DS_CONFIG=configs/ds/ds_350m.json
        ;;
    1b)
        NGPU=4
        DS_CONFIG=configs/ds/ds_1b.json
        ;;
    7b)
        NGPU=8
        DS_CONFIG=configs/ds/ds_7b.json
        ;;
    *)
        echo "unknown model size: $MODEL_SIZE" >&2
        exit 1
        ;;
esac

deepspeed --num_gpus "$NGPU" pretrain.py \
    --model-size "$MODEL_SIZE" \
    --data /data/slimpajama/train_4k.bin \
    --deepspeed --deepspeed_config "$DS_CONFIG"
