deepspeed --num_nodes 2 --num_gpus 8 --hostfile hostfile train.py --deepspeed --deepspeed_config configs/zeropp.json
