"""DeepSpeed config for the 13B pretraining run (ZeRO-2, optimizer states on the host)."""

ZERO_BUCKET = 500_000_000


def build_ds_config(micro_batch: int = 4, grad_accum: int = 8, lr: float = 3e-4) -> dict:
    return {
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": grad_accum,
        "gradient_clipping": 1.0,
        "steps_per_print": 50,
        "bf16": {"enabled": True},
        "optimizer": {
            "type": "AdamW",
            "params": {"lr": lr, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1},
        },
        "zero_optimization": {
            "stage": 2,
            "offload_optimizer": {"device": "cpu", "pin_memory": True},
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": ZERO_BUCKET,
            "allgather_bucket_size": ZERO_BUCKET,
        },
    }
