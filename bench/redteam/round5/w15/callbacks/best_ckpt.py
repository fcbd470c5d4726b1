import lightning.pytorch as pl
from lightning.pytorch.utilities import rank_zero_only


class SaveBest(pl.Callback):
    def __init__(self, path="best.ckpt"):
        self.path = path
        self.best = float("inf")

    def on_validation_end(self, trainer, pl_module):
        loss = trainer.callback_metrics.get("val_loss")
        if loss is not None and loss < self.best:
            self.best = loss
            self._save(trainer)

    @rank_zero_only
    def _save(self, trainer):
        trainer.save_checkpoint(self.path)
