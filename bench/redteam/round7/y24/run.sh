deepspeed --num_gpus 8 train.py
