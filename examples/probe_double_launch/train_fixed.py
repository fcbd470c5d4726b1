"""train.py fixed: pinned host buffers for the offloaded optimizer (start it once: launch_fixed.sh)."""
import lightning as L
from lightning.pytorch.strategies import DeepSpeedStrategy

from common import Net, loader, trainer_args

if __name__ == "__main__":
    strategy = DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True)
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy=strategy, precision="bf16-mixed", **trainer_args())
    trainer.fit(Net(), loader())
