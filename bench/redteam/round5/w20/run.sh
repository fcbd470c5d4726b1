deepspeed --num_gpus 4 summarize.py --deepspeed ds/zero2_auto.json --output_dir out
