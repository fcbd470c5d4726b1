torchrun --nproc_per_node 4 cli.py train
