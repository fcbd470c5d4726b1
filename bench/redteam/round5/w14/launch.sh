torchrun --nproc_per_node=4 train_cls.py batch_size=32
