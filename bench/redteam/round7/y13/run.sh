deepspeed --num_gpus 2 train.py --config conf/train.yaml
