import time

import torch
import torch.distributed as dist


class StepTimer:
    """Wall time of a block, reduced to the slowest rank so stragglers show up in the log.

        with StepTimer("epoch") as t:
            ...
        print(t.seconds)
    """

    def __init__(self, name):
        self.name = name
        self.seconds = float("nan")

    def __enter__(self):
        torch.cuda.synchronize()
        self.start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        torch.cuda.synchronize()
        elapsed = torch.tensor([time.perf_counter() - self.start], device="cuda")
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        self.seconds = elapsed.item()
        return False
