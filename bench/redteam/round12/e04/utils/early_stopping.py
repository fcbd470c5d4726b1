import torch
import torch.distributed as dist

from .dist import is_dist_avail_and_initialized, is_main_process


class EarlyStopping:
    """Patience counter kept on rank 0; the decision is broadcast so every rank stops at the same epoch.

    Every rank must call ``step`` once per validation.
    """

    def __init__(self, patience=10, min_delta=0.0, device="cuda"):
        self.patience = patience
        self.min_delta = min_delta
        self.device = device
        self.best = float("inf")
        self.num_bad_epochs = 0

    def step(self, metric):
        flag = torch.zeros(1, dtype=torch.int32, device=self.device)
        if not is_main_process():
            # followers only learn the verdict
            dist.broadcast(flag, src=0)
            return bool(flag.item())

        if metric < self.best - self.min_delta:
            self.best = metric
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        flag.fill_(int(self.num_bad_epochs >= self.patience))
        if is_dist_avail_and_initialized():
            dist.broadcast(flag, src=0)
        return bool(flag.item())
