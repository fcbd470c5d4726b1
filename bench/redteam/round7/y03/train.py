import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from launch import run_distributed


def worker(rank, world):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    model = DDP(torch.nn.Linear(16, 16).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 16).cuda()).sum()
        opt.zero_grad(); loss.backward(); opt.step()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--gpus", type=int, default=1)
    run_distributed(worker, p.parse_args().gpus)
