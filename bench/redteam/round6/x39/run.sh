deepspeed --num_gpus 4 cli.py --steps 500
