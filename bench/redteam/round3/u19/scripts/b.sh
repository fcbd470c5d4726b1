deepspeed --num_gpus 8 train.py --deepspeed --deepspeed_config configs/b.json
