torchrun --nnodes 1 --nproc_per_node 4 main.py
