import lightning as L
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint

from landcover.callbacks import MetricsDump


def build_trainer(trainer_cfg: dict, output_dir: str) -> L.Trainer:
    return L.Trainer(
        accelerator="gpu",
        strategy="ddp",
        devices=trainer_cfg["devices"],
        num_nodes=trainer_cfg["num_nodes"],
        max_epochs=trainer_cfg["max_epochs"],
        precision=trainer_cfg["precision"],
        default_root_dir=output_dir,
        callbacks=[ModelCheckpoint(monitor="val/acc", mode="max"), LearningRateMonitor(), MetricsDump(output_dir)],
    )
