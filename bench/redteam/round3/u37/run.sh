deepspeed --include localhost:0,1 train.py --deepspeed --deepspeed_config ds.json
