import lightning as L
from lightning.pytorch.strategies import DeepSpeedStrategy


def build_trainer(devices=4):
    strategy = DeepSpeedStrategy(stage=3, offload_optimizer=True, offload_parameters=True, pin_memory=True)
    return L.Trainer(accelerator="gpu", devices=devices, strategy=strategy, precision="bf16-mixed", max_epochs=1)
