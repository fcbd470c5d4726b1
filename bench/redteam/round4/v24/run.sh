#!/bin/bash
HEAD=${HEAD:-trainer-0.svc}
torchrun --nnodes=1:4 --nproc_per_node=8 --max-restarts=3 --rdzv_id=job42 --rdzv_backend=c10d --rdzv_endpoint=$HEAD:29400 train.py
