deepspeed --num_gpus 4 train.py --deepspeed --deepspeed_config configs/elastic.json
