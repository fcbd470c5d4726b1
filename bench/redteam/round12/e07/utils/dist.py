import os

import torch
import torch.distributed as dist


def init_distributed():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    return local_rank, dist.get_rank(), dist.get_world_size()


@torch.no_grad()
def broadcast_parameters(module, src=0):
    """Start every worker from rank `src`'s weights and buffers."""
    for tensor in list(module.parameters()) + list(module.buffers()):
        dist.broadcast(tensor.data, src)


@torch.no_grad()
def average_parameters(module):
    """Local SGD: replace each worker's weights (and BN statistics) by the mean over workers."""
    world = dist.get_world_size()
    tensors = [t for t in list(module.parameters()) + list(module.buffers()) if t.is_floating_point()]
    flat = torch.cat([t.reshape(-1) for t in tensors])
    dist.all_reduce(flat)
    flat.div_(world)
    offset = 0
    for t in tensors:
        n = t.numel()
        t.copy_(flat[offset:offset + n].view_as(t))
        offset += n
