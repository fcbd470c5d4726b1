OMP_NUM_THREADS=8 fabric run --accelerator=cuda --devices=4 train.py
