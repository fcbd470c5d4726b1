import os

import torch
import torch.distributed as dist


def init_distributed_device():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    return torch.device("cuda", local_rank)


def is_main_process():
    return not dist.is_initialized() or dist.get_rank() == 0
