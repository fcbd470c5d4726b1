deepspeed --num_gpus 8 pretrain.py --deepspeed --deepspeed_config ds.json --tp 2
