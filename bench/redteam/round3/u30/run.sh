deepspeed --num_gpus 4 finetune.py
