"""Hyper-parameters of the reviews classifier.

These values are written out in configs/ds_zero2.json as well (the DeepSpeed config is shared with the
inference team and is kept concrete, without "auto"); change both together.
"""
from dataclasses import dataclass


@dataclass
class RunConfig:
    model_name: str = "microsoft/deberta-v3-large"
    max_len: int = 256
    num_labels: int = 5
    batch_size: int = 16
    grad_accum: int = 2
    lr: float = 2e-5
    weight_decay: float = 0.01
    epochs: int = 3
    warmup_ratio: float = 0.06
    bf16: bool = True
    label_smoothing: float = 0.0
