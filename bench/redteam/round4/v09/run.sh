deepspeed --hostfile hostfile train.py --deepspeed --deepspeed_config configs/zeropp.json
