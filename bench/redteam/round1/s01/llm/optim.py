"""Optimizer construction: CPU Adam for ZeRO-Offload, weight decay groups."""
from deepspeed.ops.adam import DeepSpeedCPUAdam


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "norm" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def build_optimizer(model, lr=2e-5, weight_decay=0.01):
    return DeepSpeedCPUAdam(param_groups(model, weight_decay), lr=lr, betas=(0.9, 0.95))
