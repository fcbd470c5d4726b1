torchrun --nproc_per_node=1 -m pkg.train
