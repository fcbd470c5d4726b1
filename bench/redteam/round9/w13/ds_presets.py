BASE = {
    "train_batch_size": 128,
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 2,
    "gradient_clipping": 1.0,
    "bf16": {"enabled": True},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "weight_decay": 0.01}},
    "wall_clock_breakdown": False,
}

_STAGES = {"zero1": 1, "zero2": 2}

PRESETS = {
    name: {**BASE, "zero_optimization": {"stage": stage, "overlap_comm": True}}
    for name, stage in _STAGES.items()
}
