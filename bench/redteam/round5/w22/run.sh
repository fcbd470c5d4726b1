#!/bin/bash
torchrun --standalone --nproc_per_node=gpu train.py
