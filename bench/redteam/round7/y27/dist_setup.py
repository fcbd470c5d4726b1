import os

import torch
import torch.distributed as dist


def slurm_to_torch_env():
    os.environ["LOCAL_RANK"] = os.environ["SLURM_LOCALID"]
    os.environ["RANK"] = os.environ["SLURM_PROCID"]
    os.environ["WORLD_SIZE"] = os.environ["SLURM_NTASKS"]


def init():
    slurm_to_torch_env()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    return local_rank
