accelerate launch --config_file zero3.yaml train.py
