import torch
import torch.distributed as dist

from .dist import is_dist_avail_and_initialized


class AverageMeter:
    """Running sum/count of a scalar; `synchronize` sums it over the ranks."""

    def __init__(self, name, fmt=":.4f"):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += float(value) * n
        self.count += n

    def synchronize(self):
        if not is_dist_avail_and_initialized():
            return
        t = torch.tensor([self.sum, self.count], dtype=torch.float64, device="cuda")
        dist.barrier()
        dist.all_reduce(t)
        self.sum, self.count = t[0].item(), int(t[1].item())

    @property
    def avg(self):
        return self.sum / max(self.count, 1)

    def __str__(self):
        return ("{name} {avg" + self.fmt + "}").format(name=self.name, avg=self.avg)
