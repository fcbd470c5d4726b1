torchrun --nproc_per_node=8 train_fsdp2.py
