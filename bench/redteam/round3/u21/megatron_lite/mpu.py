import torch.distributed as dist

_TP = 1
_DP_GROUP = None
_TP_GROUP = None


def initialize_model_parallel(tp):
    global _TP, _DP_GROUP, _TP_GROUP
    _TP = tp
    world, rank = dist.get_world_size(), dist.get_rank()
    for i in range(tp):
        ranks = list(range(i, world, tp))
        g = dist.new_group(ranks)
        if rank in ranks:
            _DP_GROUP = g
    for start in range(0, world, tp):
        ranks = list(range(start, start + tp))
        g = dist.new_group(ranks)
        if rank in ranks:
            _TP_GROUP = g


def get_data_parallel_group():
    return _DP_GROUP


def get_data_parallel_world_size():
    return dist.get_world_size() // _TP


def get_data_parallel_rank():
    return dist.get_rank() // _TP


def get_model_parallel_group():
    return _TP_GROUP


def get_model_parallel_world_size():
    return _TP


def get_model_parallel_rank():
    return dist.get_rank() % _TP
