from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_config: str = "configs/data.yaml"
    epochs: int = 20
    batch_size: int = 256
    lr: float = 3e-4
    weight_decay: float = 0.01
    num_workers: int = 4
    device: str = "cuda:0"
    output_dir: str = "runs/forecast"
    log_every: int = 50
