deepspeed --num_gpus 2 train.py --deepspeed --deepspeed_config configs/a.json
