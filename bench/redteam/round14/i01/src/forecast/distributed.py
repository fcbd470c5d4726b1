import os

import torch
import torch.distributed as dist


def init_distributed() -> int:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    return local_rank


def is_main_process() -> bool:
    return dist.get_rank() == 0


def cleanup() -> None:
    dist.destroy_process_group()
