deepspeed --num_gpus 2 train.py --deepspeed_config ds.json
