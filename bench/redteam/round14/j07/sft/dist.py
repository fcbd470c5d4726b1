import os

import deepspeed
import torch
import torch.distributed as dist


def init_distributed():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed(dist_backend="nccl")
    return local_rank


def is_main_process():
    return not dist.is_initialized() or dist.get_rank() == 0


def print_rank_0(*msg):
    if is_main_process():
        print(*msg, flush=True)
