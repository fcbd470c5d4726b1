import os

import torch
import torch.distributed as dist


def init() -> int:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    return local_rank


def is_main() -> bool:
    return dist.get_rank() == 0


def mean_across_ranks(value: torch.Tensor) -> torch.Tensor:
    value = value.clone()
    dist.all_reduce(value, op=dist.ReduceOp.AVG)
    return value
