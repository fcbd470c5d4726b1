torchrun --nproc_per_node=2 pipeline_toy.py
