#!/usr/bin/env bash
# Container entrypoint of the t5-train StatefulSet (2 pods x 8 GPUs). There is no sshd in the
# image, so every pod starts its own local launcher (--no_ssh) and finds its place in the
# hostfile from the pod ordinal; rank 0's pod is the rendezvous.
set -euo pipefail
NODE_RANK=${HOSTNAME##*-}
MASTER_ADDR=${MASTER_ADDR:-t5-train-0.t5-train.ml.svc.cluster.local}

cd /workspace
exec deepspeed --hostfile hostfile --no_ssh --node_rank "$NODE_RANK" \
    --master_addr "$MASTER_ADDR" --master_port 29500 \
    --bind_cores_to_rank \
    finetune_t5.py --deepspeed --deepspeed_config ds_zero2_offload.json --epochs 3
