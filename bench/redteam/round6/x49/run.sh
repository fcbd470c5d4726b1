# debug run on the first node only, 4 GPUs
deepspeed --hostfile hostfile --num_nodes 1 --num_gpus 4 train.py --deepspeed_config ds.json
