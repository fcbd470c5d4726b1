import lightning as L


class CheckpointEvery(L.Callback):
    def __init__(self, every=500):
        self.every = every

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if trainer.is_global_zero and trainer.global_step % self.every == 0:
            trainer.save_checkpoint(f"ckpt/step{trainer.global_step}.ckpt")
