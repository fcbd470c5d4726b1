import torch


def optimizer_factory(lr, weight_decay=0.01):
    def build(params):
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    return build
