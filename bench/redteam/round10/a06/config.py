from dataclasses import dataclass


@dataclass
class TrainConfig:
    model_name: str = "microsoft/deberta-v3-base"
    dataset_path: str = "data/mnli_tokenized"
    num_labels: int = 3
    per_device_batch_size: int = 32
    grad_accum: int = 1
    lr: float = 2e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.06
    epochs: int = 3
    seed: int = 42
    num_workers: int = 4
    output_dir: str = "out/deberta-mnli"
