import os

import lightning.pytorch as pl


class PeriodicCheckpoint(pl.Callback):
    """Write a checkpoint every `every_n_steps` optimizer steps."""

    def __init__(self, dirpath, every_n_steps=1000):
        self.dirpath = dirpath
        self.every_n_steps = every_n_steps

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        if step > 0 and step % self.every_n_steps == 0 and trainer.is_global_zero:
            os.makedirs(self.dirpath, exist_ok=True)
            trainer.save_checkpoint(os.path.join(self.dirpath, f"step{step}.ckpt"))
