from dataclasses import dataclass


@dataclass
class DistConfig:
    num_gpus: int = 1
    backend: str = "nccl"
    dist_url: str = "tcp://127.0.0.1:23456"
