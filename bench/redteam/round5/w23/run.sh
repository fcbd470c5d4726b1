torchrun --nnodes=1 --nproc_per_node=8 train_fsdp.py
