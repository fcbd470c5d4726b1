import torch.distributed as dist


def average_gradients(model):
    world = dist.get_world_size()
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
            p.grad /= world


def broadcast_params(model, src=0):
    for p in model.parameters():
        dist.broadcast(p.data, src)
