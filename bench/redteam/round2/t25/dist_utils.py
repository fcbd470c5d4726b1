import os

import torch.distributed as dist


def init_distributed():
    dist.init_process_group(backend="nccl", timeout=__import__("datetime").timedelta(minutes=60))
    return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
