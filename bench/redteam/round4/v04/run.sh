torchrun --nproc_per_node=8 train.py --lr=3e-4
