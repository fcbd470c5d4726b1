#!/bin/sh
torchrun --standalone --nproc-per-node=4 train.py
