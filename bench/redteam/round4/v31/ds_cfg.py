BASE = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "zero_optimization": {"stage": 2},
    "bf16": {"enabled": True},
}
LARGE = {"train_batch_size": 64}
CONFIG = {**BASE, **LARGE}
