deepspeed --num_gpus 2 train.py
