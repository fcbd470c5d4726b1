import contextlib
import datetime

import torch
import torch.distributed as dist


@contextlib.contextmanager
def distributed(timeout_minutes=30):
    dist.init_process_group("nccl", timeout=datetime.timedelta(minutes=timeout_minutes))
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    try:
        yield rank, dist.get_world_size()
    finally:
        dist.barrier()
        dist.destroy_process_group()
