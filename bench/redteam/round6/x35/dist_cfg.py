from dataclasses import dataclass


@dataclass
class DistConfig:
    backend: str = "nccl"
    host: str = "127.0.0.1"
    port: int = 23456
