"""Tensor-/data-parallel process groups (Megatron layout: TP ranks are adjacent)."""
import torch.distributed as dist

_TP_GROUP = None
_DP_GROUP = None
_TP_SIZE = 1


def initialize_groups(tp_size: int):
    global _TP_GROUP, _DP_GROUP, _TP_SIZE
    world, rank = dist.get_world_size(), dist.get_rank()
    assert world % tp_size == 0, f"world size {world} not divisible by tp size {tp_size}"
    _TP_SIZE = tp_size
    # every rank must take part in every new_group call, member or not
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


def tp_rank() -> int:
    return dist.get_rank(group=_TP_GROUP)


def tp_world_size() -> int:
    return _TP_SIZE


def dp_rank() -> int:
    return dist.get_rank(group=_DP_GROUP)


def dp_world_size() -> int:
    return dist.get_world_size(group=_DP_GROUP)


def tp_src_rank() -> int:
    """Global rank of tensor-parallel rank 0 of this rank's group."""
    return dist.get_rank() - dist.get_rank() % _TP_SIZE
