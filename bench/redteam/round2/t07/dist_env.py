import os

import torch
import torch.distributed as dist


def setup():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    world_size = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(dist.get_rank())
    return dist.get_rank(), world_size
