OMP_NUM_THREADS=4 deepspeed --num_gpus 2 train.py --deepspeed_config ds.json
