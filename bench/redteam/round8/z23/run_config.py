from dataclasses import dataclass


@dataclass
class RunConfig:
    model_name: str = "roberta-large"
    output_dir: str = "runs/roberta-mnli"
    micro_batch: int = 16
    grad_accum: int = 2
    lr: float = 2e-5
    weight_decay: float = 0.01
    epochs: int = 3
    bf16: bool = True
    ds_config: str = "configs/zero2.json"
