BASE = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 2e-4}},
    "fp16": {"enabled": True, "loss_scale": 0},
    "zero_optimization": {"stage": 2},
}
BF16 = {"bf16": {"enabled": True}, "fp16": {"enabled": False}}


def build(precision):
    return {**BASE, **(BF16 if precision == "bf16" else {})}
