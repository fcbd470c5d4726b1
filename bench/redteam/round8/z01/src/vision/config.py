from dataclasses import dataclass


@dataclass
class TrainCfg:
    lr: float = 3e-4
    epochs: int = 20
    batch_size: int = 64
    device: str = "cuda:0"
