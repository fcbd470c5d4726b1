export OMP_NUM_THREADS=4
accelerate launch --config_file configs/accel.yaml train.py
