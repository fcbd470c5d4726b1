from constants import MICRO_BATCH, ZERO_STAGE


def get_ds_config(lr=1e-5):
    return {
        "train_micro_batch_size_per_gpu": MICRO_BATCH,
        "gradient_accumulation_steps": 4,
        "bf16": {"enabled": True},
        "optimizer": {"type": "AdamW", "params": {"lr": lr}},
        "zero_optimization": {"stage": ZERO_STAGE, "overlap_comm": True},
    }
