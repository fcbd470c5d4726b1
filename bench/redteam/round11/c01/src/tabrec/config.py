import tomllib
from dataclasses import dataclass, field


@dataclass
class DataConfig:
    root: str
    batch_size: int = 4096
    num_workers: int = 4


@dataclass
class ModelConfig:
    embedding_dim: int = 64
    mlp: list[int] = field(default_factory=lambda: [256, 128, 64])


@dataclass
class TrainConfig:
    epochs: int = 10
    lr: float = 1e-3
    weight_decay: float = 0.0
    seed: int = 0
    out_dir: str = "runs/default"
    resume: str = ""


@dataclass
class Config:
    data: DataConfig
    model: ModelConfig
    train: TrainConfig


def load_config(path: str) -> Config:
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    return Config(
        data=DataConfig(**raw["data"]),
        model=ModelConfig(**raw.get("model", {})),
        train=TrainConfig(**raw.get("train", {})),
    )
