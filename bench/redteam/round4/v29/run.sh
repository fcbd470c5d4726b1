accelerate launch --config_file configs/accel.yaml train.py
