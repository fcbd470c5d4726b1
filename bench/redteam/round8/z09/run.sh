accelerate launch --multi_gpu --num_processes 8 --num_machines 1 --mixed_precision bf16 train_dpo.py
