OMP_NUM_THREADS=8 deepspeed --num_gpus 2 --bind_cores_to_rank train.py
