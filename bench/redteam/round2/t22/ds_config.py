def get_config(micro_batch=2, stage=3):
    return {
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": 8,
        "bf16": {"enabled": True},
        "optimizer": {"type": "AdamW", "params": {"lr": 2e-5}},
        "zero_optimization": {
            "stage": stage,
            "overlap_comm": True,
            "stage3_gather_16bit_weights_on_model_save": False,
        },
    }
