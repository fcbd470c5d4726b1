"""Hyper-parameters of the ViT-L run. Change them here, not on the command line."""
from dataclasses import dataclass


@dataclass
class TrainConfig:
    # model
    model: str = "vit_large_patch16_224"
    num_classes: int = 21841
    # optimisation
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup_epochs: int = 5
    epochs: int = 90
    label_smoothing: float = 0.1
    # input pipeline (per rank)
    num_workers: int = 6
    # bookkeeping
    log_every: int = 200
    seed: int = 0
