import json
import os

import lightning as L
from lightning.pytorch.utilities import rank_zero_only


class MetricsDump(L.Callback):
    def __init__(self, output_dir: str):
        self.output_dir = output_dir
        self.history = []

    def on_validation_epoch_end(self, trainer, pl_module):
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        self.history.append({"epoch": trainer.current_epoch, **metrics})
        self._write()

    @rank_zero_only
    def _write(self):
        os.makedirs(self.output_dir, exist_ok=True)
        with open(os.path.join(self.output_dir, "metrics.json"), "w") as f:
            json.dump(self.history, f, indent=2)
