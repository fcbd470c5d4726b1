torchrun --nproc_per_node 8 evaluate.py --ckpt runs/best.pt
