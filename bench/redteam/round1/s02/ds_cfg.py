"""DeepSpeed configuration for the reward model trainer."""


def get_ds_config(micro_batch, grad_accum=1, stage=3):
    return {
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": grad_accum,
        "bf16": {"enabled": True},
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-5, "weight_decay": 0.0}},
        "zero_optimization": {"stage": stage, "overlap_comm": True, "stage3_param_persistence_threshold": 10000},
    }
