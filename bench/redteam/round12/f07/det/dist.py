import os

import torch
import torch.distributed as dist


def init_distributed(args):
    """Join the job's process group. Rank and world size come from Slurm when srun starts us."""
    args.rank = int(os.environ.get("SLURM_PROCID", os.environ.get("RANK", 0)))
    args.world_size = int(os.environ.get("SLURM_NTASKS", os.environ.get("WORLD_SIZE", 1)))
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group("nccl", init_method="env://", rank=args.rank, world_size=args.world_size)
    dist.barrier()
    return torch.device("cuda", args.local_rank)


def is_main_process():
    return not dist.is_initialized() or dist.get_rank() == 0
