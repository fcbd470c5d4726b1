import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.strategies import DeepSpeedStrategy


def build_trainer(devices):
    strategy = DeepSpeedStrategy(stage=3, offload_optimizer=True, offload_parameters=True)
    return L.Trainer(
        accelerator="gpu",
        devices=devices,
        strategy=strategy,
        precision="bf16-mixed",
        max_epochs=1,
        callbacks=[ModelCheckpoint(dirpath="ckpt", save_last=True)],
    )
