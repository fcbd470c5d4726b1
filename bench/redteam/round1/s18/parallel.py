import os

import torch
import torch.distributed as dist

_TP_GROUP = None
_DP_GROUP = None


def initialize(tp_size):
    global _TP_GROUP, _DP_GROUP
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    world, rank = dist.get_world_size(), dist.get_rank()
    for start in range(0, world, tp_size):
        ranks = list(range(start, start + tp_size))
        group = dist.new_group(ranks)
        if rank in ranks:
            _TP_GROUP = group
    for offset in range(tp_size):
        ranks = list(range(offset, world, tp_size))
        group = dist.new_group(ranks)
        if rank in ranks:
            _DP_GROUP = group


def tp_group():
    return _TP_GROUP


def dp_group():
    return _DP_GROUP


def tp_rank():
    return dist.get_rank(_TP_GROUP)


def dp_rank():
    return dist.get_rank(_DP_GROUP)


def dp_size():
    return dist.get_world_size(_DP_GROUP)
