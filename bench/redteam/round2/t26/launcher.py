import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _worker(local_rank, world_size, fn, cfg):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    dist.init_process_group("nccl", rank=local_rank, world_size=world_size)
    torch.cuda.set_device(local_rank)
    fn(local_rank, cfg)


def launch(fn, cfg):
    world_size = torch.cuda.device_count()
    mp.spawn(_worker, args=(world_size, fn, cfg), nprocs=world_size)
