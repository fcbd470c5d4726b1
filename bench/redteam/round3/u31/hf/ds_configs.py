ZERO3 = {
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "zero_optimization": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": True},
    "bf16": {"enabled": "auto"},
    "scheduler": {
        "type": "WarmupCosineLR",
        "params": {"total_num_steps": "auto", "warmup_num_steps": "auto"},
    },
}
