deepspeed --include localhost:0,1,2,3 train.py --deepspeed --deepspeed_config ds.json
