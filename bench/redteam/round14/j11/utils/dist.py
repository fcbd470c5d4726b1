import os

import torch
import torch.distributed as dist


def init_distributed_mode(args):
    args.rank = int(os.environ["RANK"])
    args.world_size = int(os.environ["WORLD_SIZE"])
    args.gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(args.gpu)
    dist.init_process_group(backend="nccl", init_method="env://")
    dist.barrier()


def is_main_process():
    return dist.get_rank() == 0


def accuracy_all_reduce(correct, total, device):
    t = torch.tensor([correct, total], dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return (100.0 * t[0] / t[1]).item()
