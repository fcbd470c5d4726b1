import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

from config import DistConfig


def worker(local_rank, cfg):
    torch.cuda.set_device(local_rank)
    dist.init_process_group(cfg.backend, init_method=cfg.dist_url, world_size=cfg.num_gpus, rank=local_rank)
    model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(2, 8, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-gpus", type=int, default=1)
    args = p.parse_args()
    cfg = DistConfig(num_gpus=args.num_gpus)
    mp.spawn(worker, args=(cfg,), nprocs=cfg.num_gpus)


if __name__ == "__main__":
    main()
