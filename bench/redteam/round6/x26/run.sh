deepspeed --num_gpus 4 train.py --deepspeed --deepspeed_config ds_z3.json
