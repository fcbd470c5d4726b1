from dataclasses import dataclass


@dataclass
class DataConfig:
    root: str = "/data/cityscapes"
    batch_size: int = 8
    num_workers: int = 6
    crop: int = 768
