#!/usr/bin/env bash
# Two-stage SFT of the 3B model on a 4-GPU, 32-core workstation.
#   ./launch.sh            # both stages
set -euo pipefail

ACC_CFG_DIR=configs/accelerate
ACC_CFG=${ACC_CFG:-zero2_offload}

run_stage() {
    local name=$1
    shift
    echo "=== stage ${name}"
    # 32 cores / 4 ranks: 8 threads for each rank's CPU Adam
    accelerate launch --config_file "${ACC_CFG_DIR}/${ACC_CFG}.yaml" \
        --num_cpu_threads_per_process 8 \
        train_sft.py --run_name "${name}" "$@"
}

run_stage general --dataset data/general_mix.jsonl --epochs 2 --lr 2e-5
run_stage domain --dataset data/domain_qa.jsonl --epochs 1 --lr 5e-6 --init_from outputs/general
