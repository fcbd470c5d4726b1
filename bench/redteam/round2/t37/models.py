import torch


class Encoder(torch.nn.Module):
    def __init__(self, dim=256):
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x)

    @classmethod
    def from_pretrained(cls, path, map_location="cpu", **kwargs):
        model = cls(**kwargs)
        model.load_state_dict(torch.load(path, map_location=map_location, weights_only=True))
        return model
