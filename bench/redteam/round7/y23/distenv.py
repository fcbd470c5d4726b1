import os

import torch
import torch.distributed as dist


def setup():
    rank = int(os.environ["SLURM_PROCID"])
    world = int(os.environ["SLURM_NTASKS"])
    local = rank % torch.cuda.device_count()
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    return local
