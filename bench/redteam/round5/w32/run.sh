accelerate launch --config_file configs/fsdp.yaml sft.py
