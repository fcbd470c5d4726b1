torchrun --nproc_per_node 8 finetune.py --resume runs/last.pt
