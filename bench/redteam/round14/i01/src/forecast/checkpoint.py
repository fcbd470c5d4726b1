import os

import torch


class CheckpointMixin:
    def save(self, epoch: int, val_loss: float) -> None:
        os.makedirs(self.cfg.output_dir, exist_ok=True)
        state = {
            "epoch": epoch,
            "val_loss": val_loss,
            "model": self.model.module.state_dict(),
            "optimizer": self.optimizer.state_dict(),
        }
        torch.save(state, os.path.join(self.cfg.output_dir, f"epoch{epoch:03d}.pt"))
