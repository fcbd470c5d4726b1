HIDDEN = 4096


def zero3_config(micro_batch=1, hidden=HIDDEN):
    return {
        "train_micro_batch_size_per_gpu": micro_batch,
        "bf16": {"enabled": True},
        "zero_optimization": {
            "stage": 3,
            "reduce_bucket_size": hidden * hidden,
            "stage3_prefetch_bucket_size": 0.9 * hidden * hidden,
            "stage3_param_persistence_threshold": 10 * hidden,
            "stage3_gather_16bit_weights_on_model_save": True,
        },
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-5}},
    }
