import torch
import torch.distributed as dist
from lightning.pytorch.callbacks import Callback


class GlobalMetric(Callback):
    def on_validation_epoch_end(self, trainer, pl_module):
        t = torch.tensor([trainer.callback_metrics["val_loss"].item()], device=pl_module.device)
        dist.all_reduce(t)
        if trainer.is_global_zero:
            print("mean val", t.item() / trainer.world_size)
