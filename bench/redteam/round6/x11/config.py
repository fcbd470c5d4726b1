import os
from dataclasses import dataclass, field


@dataclass
class DataConfig:
    root: str = "/data/imagenet"
    batch_size: int = 64
    workers: int = field(default_factory=os.cpu_count)
