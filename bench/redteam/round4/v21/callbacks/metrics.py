import torch
import torch.distributed as dist
from lightning.pytorch.callbacks import Callback


class GlobalMetric(Callback):
    def on_validation_epoch_end(self, trainer, pl_module):
        t = torch.tensor([trainer.callback_metrics["val_loss"].item()], device=pl_module.device)
        if trainer.is_global_zero:
            dist.all_reduce(t)
            print("mean val", t.item() / trainer.world_size)
