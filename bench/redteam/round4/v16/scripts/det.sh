torchrun --nproc_per_node=8 -m trainers.det
