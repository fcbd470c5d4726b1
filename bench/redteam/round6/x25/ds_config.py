NVME_ROOT = None

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 1,
    "gradient_accumulation_steps": 16,
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 3,
        "offload_param": {"device": "nvme", "pin_memory": True},
        "offload_optimizer": {"device": "nvme", "pin_memory": True},
    },
    "aio": {"block_size": 1048576, "queue_depth": 8},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-5}},
}
