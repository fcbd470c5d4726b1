import torch
import torch.distributed as dist


def log_metrics(step, loss):
    if dist.get_rank() != 0:
        return
    avg = loss.detach().clone()
    dist.all_reduce(avg)
    avg /= dist.get_world_size()
    print(f"step {step}: loss {avg.item():.4f}")
