#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES="${LOCAL_RANK}"
export OMP_NUM_THREADS=6
exec python train_unet.py "$@"
