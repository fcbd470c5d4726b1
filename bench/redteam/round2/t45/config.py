import os
from dataclasses import dataclass, field


@dataclass
class TrainConfig:
    lr: float = 1e-3
    epochs: int = 10
    local_rank: int = field(default_factory=lambda: int(os.environ.get("LOCAL_RANK", 0)))
    device: str = "cuda"

    def __post_init__(self):
        self.device = f"cuda:{self.local_rank}"
