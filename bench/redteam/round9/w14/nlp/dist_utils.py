import contextlib
import os

import torch
import torch.distributed as dist


def setup():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    return dist.get_rank(), local_rank


@contextlib.contextmanager
def rank_zero_first(rank):
    if rank != 0:
        dist.barrier()
    try:
        yield
    finally:
        if rank == 0:
            dist.barrier()
