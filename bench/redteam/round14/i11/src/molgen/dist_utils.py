import os

import deepspeed
import torch
import torch.distributed as dist


def init() -> None:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    deepspeed.init_distributed("nccl")


def is_main() -> bool:
    return dist.get_rank() == 0
