import torch.distributed as dist

TP = 2
_TP_GROUP = None


def init_groups():
    global _TP_GROUP
    world = dist.get_world_size()
    rank = dist.get_rank()
    for start in range(0, world, TP):
        ranks = list(range(start, start + TP))
        g = dist.new_group(ranks)
        if rank in ranks:
            _TP_GROUP = g
    return _TP_GROUP


def tp_src():
    return dist.get_rank() - dist.get_rank() % TP
