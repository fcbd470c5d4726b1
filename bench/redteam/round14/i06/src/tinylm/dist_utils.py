import os

import deepspeed
import torch
import torch.distributed as dist


def setup() -> None:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    deepspeed.init_distributed("nccl")


def rank() -> int:
    return dist.get_rank()
