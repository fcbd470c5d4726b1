import builtins
import datetime
import os

import torch
import torch.distributed as dist

from .env import DistEnv


def get_world_size():
    return dist.get_world_size() if dist.is_initialized() else 1


def get_rank():
    return dist.get_rank() if dist.is_initialized() else 0


def is_main_process():
    return get_rank() == 0


def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)


def setup_for_distributed(is_master):
    builtin_print = builtins.print

    def print(*args, **kwargs):
        if is_master:
            builtin_print(f"[{datetime.datetime.now():%H:%M:%S}]", *args, **kwargs)

    builtins.print = print


def init_distributed_mode(args):
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        print("Not using distributed mode")
        args.distributed, args.rank, args.world_size, args.gpu = False, 0, 1, 0
        return None
    env = DistEnv.from_env()
    args.distributed = True
    args.rank, args.world_size, args.gpu = env.rank, env.world_size, env.local_rank
    torch.cuda.set_device(env.rank)
    print(f"| distributed init (rank {env.rank}/{env.world_size}): {args.dist_url}", flush=True)
    dist.init_process_group(backend="nccl", init_method=args.dist_url, world_size=env.world_size,
                            rank=env.rank, timeout=datetime.timedelta(minutes=args.dist_timeout))
    dist.barrier()
    setup_for_distributed(env.is_main)
    return env


def all_reduce_sum(values, device):
    t = torch.tensor(values, dtype=torch.float64, device=device)
    if dist.is_initialized():
        dist.all_reduce(t)
    return t.tolist()
