#!/usr/bin/env bash
# Single 8-GPU box: ZeRO-2 with the optimizer on the CPU.
set -e

launch() {
    local config="$1"
    shift
    deepspeed --num_gpus 8 --module llm.main --deepspeed --deepspeed_config "$config" "$@"
}

launch ds/zero2_offload.json --steps 2000
