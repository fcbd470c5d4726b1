OMP_NUM_THREADS=8 deepspeed --num_gpus 4 pretrain.py
