deepspeed --num_gpus 2 train.py --micro-bs 8
