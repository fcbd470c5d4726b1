#!/bin/bash
# The script starts one worker per listed GPU itself (no torchrun).
python train.py --gpus 0,1,2,3 --data /datasets/cifar100 --epochs 200 --batch-size 128
# resume:
# python train.py --gpus 0,1,2,3 --data /datasets/cifar100 --epochs 200 --resume runs/wrn/last.pt
