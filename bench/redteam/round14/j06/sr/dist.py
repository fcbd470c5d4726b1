import os

import torch
import torch.distributed as dist


def init_distributed_mode(args):
    """torchrun sets RANK, WORLD_SIZE and LOCAL_RANK for every process it starts."""
    args.rank = int(os.environ["RANK"])
    args.world_size = int(os.environ["WORLD_SIZE"])
    args.gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(args.gpu)
    dist.init_process_group("nccl", init_method="env://")
    dist.barrier()


def is_main_process():
    return dist.get_rank() == 0


def all_reduce_mean(t):
    t = t.clone()
    dist.all_reduce(t)
    return t / dist.get_world_size()
