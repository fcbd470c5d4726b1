#!/bin/bash
export OMP_NUM_THREADS=8
accelerate launch --num_processes 4 --num_machines 1 train.py
