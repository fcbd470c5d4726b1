import glob
import os
import re

import torch


class CheckpointManager:
    """Keeps the last `keep` epoch checkpoints of a run and restores the newest one."""

    def __init__(self, out_dir, model, optimizer, scheduler, ema=None, keep=3):
        self.out_dir = out_dir
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.ema = ema
        self.keep = keep

    def _checkpoints(self):
        paths = glob.glob(os.path.join(self.out_dir, "epoch_*.pt"))
        return sorted(paths, key=lambda p: int(re.search(r"epoch_(\d+)", p).group(1)))

    def save(self, epoch):
        os.makedirs(self.out_dir, exist_ok=True)
        state = {
            "epoch": epoch,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
        }
        if self.ema is not None:
            state["ema"] = self.ema.state_dict()
        torch.save(state, os.path.join(self.out_dir, f"epoch_{epoch:03d}.pt"))
        for old in self._checkpoints()[: -self.keep]:
            os.remove(old)

    def resume(self):
        """Restore the newest checkpoint; returns the epoch to start from."""
        found = self._checkpoints()
        if not found:
            return 0
        state = torch.load(found[-1])
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        if self.ema is not None and "ema" in state:
            self.ema.load_state_dict(state["ema"])
        return state["epoch"] + 1
