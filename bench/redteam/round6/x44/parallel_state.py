import torch.distributed as dist

_TP_GROUP = None
_DP_GROUP = None


def initialize(tp_size):
    global _TP_GROUP, _DP_GROUP
    world = dist.get_world_size()
    rank = dist.get_rank()
    for start in range(0, world, tp_size):
        ranks = list(range(start, start + tp_size))
        g = dist.new_group(ranks)
        if rank in ranks:
            _TP_GROUP = g
    for i in range(tp_size):
        ranks = list(range(i, world, tp_size))
        g = dist.new_group(ranks)
        if rank in ranks:
            _DP_GROUP = g


def tp_group():
    return _TP_GROUP


def dp_group():
    return _DP_GROUP


def tp_rank():
    return dist.get_rank(group=_TP_GROUP)
