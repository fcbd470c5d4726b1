accelerate launch --multi_gpu --num_processes 4 dpo.py
