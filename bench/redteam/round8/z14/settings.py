from dataclasses import dataclass


@dataclass
class FabricSettings:
    accelerator: str = "cuda"
    devices: int = 2
    num_nodes: int = 1
    strategy: str = "ddp"
    precision: str = "bf16-mixed"
