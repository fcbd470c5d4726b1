#!/bin/bash
mpirun -np 16 -H node01:8,node02:8 -x MASTER_ADDR=node01 -x MASTER_PORT=29500 -x PATH \
    python train.py --epochs 10
