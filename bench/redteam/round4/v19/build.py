import lightning as L
from lightning.pytorch.strategies import DeepSpeedStrategy
from conf import DEVICES, STRATEGY_KW


def make_trainer():
    return L.Trainer(devices=DEVICES, accelerator="gpu", strategy=DeepSpeedStrategy(**STRATEGY_KW), precision="bf16-mixed")
