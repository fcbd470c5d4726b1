#!/bin/bash
NUM_GPUS=${NUM_GPUS:-4}
MICRO=${MICRO:-4}
python -m torch.distributed.run --nproc_per_node "$NUM_GPUS" train.py --micro "$MICRO"
