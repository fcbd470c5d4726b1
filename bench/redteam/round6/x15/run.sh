deepspeed --num_gpus 4 train.py --deepspeed_config ds.json
