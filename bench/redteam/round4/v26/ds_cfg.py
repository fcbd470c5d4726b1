BASE = {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "bf16": {"enabled": True}}
OFFLOAD = {**BASE, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": True}}}
