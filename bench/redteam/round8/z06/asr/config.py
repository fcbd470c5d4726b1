from dataclasses import dataclass


@dataclass
class Config:
    max_epochs: int = 40
    batch_size: int = 24
    seed: int = 1234
    lr: float = 5e-4
