"""Minimal LoRA adapters for torch Linear layers."""
import math

import torch


class LoRALinear(torch.nn.Module):
    def __init__(self, base: torch.nn.Linear, r: int = 16, alpha: int = 32):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.a = torch.nn.Parameter(torch.empty(r, base.in_features))
        self.b = torch.nn.Parameter(torch.zeros(base.out_features, r))
        torch.nn.init.kaiming_uniform_(self.a, a=math.sqrt(5))
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.a.t() @ self.b.t()) * self.scale


def add_lora(model: torch.nn.Module, names=("q_proj", "v_proj"), r: int = 16):
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if child_name in names and isinstance(child, torch.nn.Linear):
                setattr(module, child_name, LoRALinear(child, r=r))
    return model
