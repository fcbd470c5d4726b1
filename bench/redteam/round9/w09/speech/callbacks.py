import time

import torch.distributed as dist


class Callback:
    def on_epoch_start(self, trainer, epoch):
        pass

    def on_step_end(self, trainer, step, loss):
        pass


class ThroughputLogger(Callback):
    def __init__(self, every):
        self.every = every
        self.t0 = time.time()

    def on_step_end(self, trainer, step, loss):
        if step % self.every == 0 and dist.get_rank() == 0:
            dt = time.time() - self.t0
            print(f"step {step} loss {loss:.4f} {self.every / dt:.1f} it/s")
            self.t0 = time.time()


class LinearWarmup(Callback):
    def __init__(self, steps):
        self.steps = steps

    def on_step_end(self, trainer, step, loss):
        if step < self.steps:
            for group in trainer.optimizer.param_groups:
                group["lr"] = trainer.settings.lr * (step + 1) / self.steps
