accelerate launch --config_file accel.yaml train.py
