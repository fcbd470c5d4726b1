"""DeepSpeed config for the sweep, sized from the model the way the HF integration sizes its "auto" buckets."""


def build_ds_config(hidden_size, micro_batch_size=1, grad_accum=16, lr=3e-4):
    return {
        "train_micro_batch_size_per_gpu": micro_batch_size,
        "gradient_accumulation_steps": grad_accum,
        "gradient_clipping": 1.0,
        "steps_per_print": 50,
        "bf16": {"enabled": True},
        "optimizer": {
            "type": "AdamW",
            "params": {"lr": lr, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1},
        },
        "zero_optimization": {
            "stage": 3,
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": hidden_size * hidden_size,
            "stage3_prefetch_bucket_size": 0.9 * hidden_size * hidden_size,
            "stage3_param_persistence_threshold": 10 * hidden_size,
            "stage3_max_live_parameters": 1e9,
        },
    }
