accelerate launch --config_file ds.yaml train.py
