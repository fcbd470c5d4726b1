# GPUs 0,1 only: 2,3 are used by the inference server
deepspeed --include localhost:0,1 --master_port 29611 train.py --deepspeed_config ds.json
