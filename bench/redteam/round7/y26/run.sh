torchrun --nproc_per_node 4 main.py
