import datetime
import os
from pathlib import Path

import deepspeed
import torch
import torch.distributed as dist


def is_dist_avail_and_initialized():
    return dist.is_available() and dist.is_initialized()


def get_world_size():
    return dist.get_world_size() if is_dist_avail_and_initialized() else 1


def get_rank():
    return dist.get_rank() if is_dist_avail_and_initialized() else 0


def is_main_process():
    return get_rank() == 0


def init_distributed_mode(args):
    args.gpu = int(os.environ.get("LOCAL_RANK", args.local_rank))
    torch.cuda.set_device(args.gpu)
    deepspeed.init_distributed(dist_backend="nccl", timeout=datetime.timedelta(minutes=60))
    args.rank, args.world_size, args.distributed = get_rank(), get_world_size(), True


def all_reduce_mean(x):
    world_size = get_world_size()
    if world_size > 1:
        x_reduce = torch.tensor(x).cuda()
        dist.all_reduce(x_reduce)
        x_reduce /= world_size
        return x_reduce.item()
    return x


def save_model(args, epoch, model_engine):
    """Every rank writes its ZeRO partition; DeepSpeed adds the barriers."""
    output_dir = Path(args.output_dir)
    if is_main_process():
        output_dir.mkdir(parents=True, exist_ok=True)
    model_engine.save_checkpoint(save_dir=args.output_dir, tag=f"checkpoint-{epoch}", client_state={"epoch": epoch})


def load_model(args, model_engine):
    if not args.resume:
        return 0
    _, client_state = model_engine.load_checkpoint(args.resume)
    print(f"Resumed from {args.resume} (epoch {client_state['epoch']})")
    return client_state["epoch"] + 1
