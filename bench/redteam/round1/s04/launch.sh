#!/bin/bash
export OMP_NUM_THREADS=4
python -m torch.distributed.run --nproc_per_node 8 train_asr.py "$@"
