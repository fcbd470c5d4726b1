import functools
import os

import torch
import torch.distributed as dist


def is_dist_avail_and_initialized():
    return dist.is_available() and dist.is_initialized()


def get_rank():
    return dist.get_rank() if is_dist_avail_and_initialized() else 0


def get_world_size():
    return dist.get_world_size() if is_dist_avail_and_initialized() else 1


def is_main_process():
    return get_rank() == 0


def master_only(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if is_main_process():
            return func(*args, **kwargs)
        return None

    return wrapper


def setup(backend="nccl"):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend)
    return torch.device("cuda", local_rank)


@torch.no_grad()
def reduce_dict(values, average=True):
    """All-reduce a dict of scalar tensors; every rank must call it (DETR's utils.reduce_dict)."""
    world_size = get_world_size()
    if world_size < 2:
        return values
    names = sorted(values.keys())
    stacked = torch.stack([values[k] for k in names])
    dist.all_reduce(stacked)
    if average:
        stacked /= world_size
    return dict(zip(names, stacked))
