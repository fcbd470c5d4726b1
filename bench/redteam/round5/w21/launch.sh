accelerate launch --num_processes 8 --num_machines 1 train.py
