import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-steps", type=int, default=1000)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    device = torch.device("cuda:0")
    model = DDP(torch.nn.Linear(64, 64).to(device), device_ids=[0])
    state = torch.load("init.pt")
    model.module.load_state_dict(state)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.max_steps):
        loss = model(torch.randn(32, 64, device=device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
