accelerate launch --config_file configs/ds_zero2.yaml train.py
