from contextlib import contextmanager

import torch.distributed as dist


@contextmanager
def main_process_first():
    rank = dist.get_rank()
    if rank != 0:
        dist.barrier()
    try:
        yield
    finally:
        if rank == 0:
            dist.barrier()
