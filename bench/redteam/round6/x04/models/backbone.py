import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, width=1024):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))

    def forward(self, x):
        return self.body(x)

    @classmethod
    def from_checkpoint(cls, path, **kw):
        model = cls(**kw)
        with open(path, "rb") as fh:
            state = torch.load(fh, weights_only=True)
        model.load_state_dict(state["model"])
        return model
