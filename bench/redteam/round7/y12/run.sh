deepspeed --num_gpus 4 train.py
