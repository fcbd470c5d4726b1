deepspeed --num_gpus 4 sft.py --output_dir out
