#!/usr/bin/env bash
# Strong-scaling check on one 8-GPU box: the same global batch of 64 sequences,
# first on GPUs 0-3, then on GPUs 4-5. Each world size has its own config so that
# DeepSpeed's batch check (global = micro x accum x world) holds.
set -euo pipefail
cd "$(dirname "$0")/.."

STEPS=${STEPS:-200}

run_world() {
    local gpus=$1
    local cfg=$2
    local port=$3
    echo ">>> GPUs ${gpus} with ${cfg}"
    deepspeed --include "localhost:${gpus}" --master_port "${port}" \
        bench_train.py --deepspeed_config "configs/${cfg}" --steps "${STEPS}" \
        --log "logs/scaling_${cfg%.json}.csv"
}

mkdir -p logs
run_world 0,1,2,3 ds_w4.json 29510
run_world 4,5 ds_w2.json 29520
