import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _run(rank, fn, world):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    fn(rank)


def init_dist(fn):
    os.environ.update(MASTER_ADDR="localhost", MASTER_PORT="29501")
    world = torch.cuda.device_count()
    mp.spawn(_run, args=(fn, world), nprocs=world)
