import torch.distributed as dist


def init():
    dist.init_process_group(backend="nccl")
    return dist.get_rank(), dist.get_world_size()
