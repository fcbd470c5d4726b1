import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from pkg import DEVICE, LR


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    args = p.parse_args()
    dist.init_process_group("nccl")
    model = torch.nn.Linear(32, 32).to(DEVICE)
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=LR)
    for _ in range(args.epochs):
        x = torch.randn(8, 32, device=DEVICE)
        loss = model(x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
