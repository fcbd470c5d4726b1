#!/bin/bash
deepspeed --hostfile hostfile --num_gpus 4 train.py
