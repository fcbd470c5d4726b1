import os

import torch
import torch.distributed as dist


def init_distributed() -> int:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    return local_rank


def is_main_process() -> bool:
    return dist.get_rank() == 0


def synchronize() -> None:
    dist.barrier()
