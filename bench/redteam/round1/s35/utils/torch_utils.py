from contextlib import contextmanager

import torch.distributed as dist


@contextmanager
def torch_distributed_zero_first(local_rank: int):
    """Make all processes wait for the local master to do something first (download, cache)."""
    if local_rank not in [-1, 0]:
        dist.barrier(device_ids=[local_rank])
    yield
    if local_rank == 0:
        dist.barrier(device_ids=[0])
