import math
import time

import torch.distributed as dist


class Callback:
    def on_fit_start(self, trainer): ...
    def on_epoch_start(self, trainer, epoch): ...
    def on_step_end(self, trainer, step, loss): ...
    def on_epoch_end(self, trainer, epoch, metrics): ...


class WarmupCosine(Callback):
    def __init__(self, base_lr, warmup_epochs, total_epochs):
        self.base_lr, self.warmup, self.total = base_lr, warmup_epochs, total_epochs

    def on_epoch_start(self, trainer, epoch):
        if epoch < self.warmup:
            lr = self.base_lr * (epoch + 1) / self.warmup
        else:
            progress = (epoch - self.warmup) / max(1, self.total - self.warmup)
            lr = 0.5 * self.base_lr * (1 + math.cos(math.pi * progress))
        for group in trainer.optimizer.param_groups:
            group["lr"] = lr


class ThroughputLogger(Callback):
    def __init__(self, every=50):
        self.every = every

    def on_epoch_start(self, trainer, epoch):
        self.t0 = time.time()
        trainer.epoch = epoch

    def on_step_end(self, trainer, step, loss):
        if dist.get_rank() == 0 and step % self.every == 0:
            rate = (step + 1) / (time.time() - self.t0)
            print(f"epoch {trainer.epoch} step {step} loss {loss:.3f} {rate:.1f} it/s")

    def on_epoch_end(self, trainer, epoch, metrics):
        if dist.get_rank() == 0:
            print(f"epoch {epoch} done: {metrics}")
