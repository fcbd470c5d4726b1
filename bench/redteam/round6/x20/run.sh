deepspeed --num_gpus 2 train.py --grad_accum 8
