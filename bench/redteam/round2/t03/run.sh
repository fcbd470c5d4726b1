#!/bin/bash
export OMP_NUM_THREADS=8
python train.py
