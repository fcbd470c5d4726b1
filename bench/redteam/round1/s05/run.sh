#!/usr/bin/env bash
torchrun --nproc_per_node=8 train_cls.py --epochs 30
