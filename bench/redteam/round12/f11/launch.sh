#!/usr/bin/env bash
# One GPU per workstation, four workstations (see hostfile): 4 ranks, one per host.
# Run from ws-01; pdsh reaches the others over passwordless ssh.
set -euo pipefail
cd "$(dirname "$0")"

deepspeed --hostfile hostfile --master_addr ws-01 --master_port 29600 \
    train_ctc.py \
    --deepspeed --deepspeed_config ds_offload.json \
    --manifest manifests/train_960.jsonl \
    --epochs 20
