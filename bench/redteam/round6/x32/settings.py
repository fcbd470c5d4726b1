from dataclasses import dataclass


@dataclass
class RunConfig:
    model: str = "bert-base-uncased"
    batch_size: int = 8
    accum: int = 2
    lr: float = 3e-5
    deepspeed: str = "ds_zero2.json"
