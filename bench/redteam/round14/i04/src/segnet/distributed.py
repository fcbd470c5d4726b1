import os

import torch
import torch.distributed as dist


def setup() -> torch.device:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    return torch.device("cuda", local_rank)


def is_main() -> bool:
    return dist.get_rank() == 0
