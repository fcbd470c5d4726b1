deepspeed --num_gpus 8 train.py --deepspeed_config ds.json --save_every 500
