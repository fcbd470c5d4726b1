import os

import torch.distributed as dist

PORT = 12355


def setup_env(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(PORT)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
