ZERO2 = {
    "train_micro_batch_size_per_gpu": 8,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
    "fp16": {"enabled": True, "loss_scale": 0, "initial_scale_power": 16},
    "bf16": {"enabled": True},
    "zero_optimization": {"stage": 2},
}
