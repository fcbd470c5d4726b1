"""Run settings for the SFT job (read by train.py; one place to change the transformers Trainer setup)."""
from dataclasses import dataclass


@dataclass
class RunConfig:
    model_name: str = "Qwen/Qwen2-1.5B"
    data_file: str = "data/sft_mix.jsonl"
    output_dir: str = "outputs/qwen2-1.5b-sft"
    max_len: int = 2048
    micro_batch: int = 4
    grad_accum: int = 2
    lr: float = 1e-5
    weight_decay: float = 0.1
    max_grad_norm: float = 1.0
    bf16: bool = True
    epochs: int = 2
    ds_config: str = "ds/zero3_bf16.json"
