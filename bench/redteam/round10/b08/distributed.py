"""Process-group setup for torch DDP: reads the torch launcher variables (the sbatch maps Slurm's onto them)."""
import os

import torch
import torch.distributed as dist


def init_distributed():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    return local_rank, rank, world_size
