import torch


class Net(torch.nn.Module):
    def __init__(self, width=512):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(128, width), torch.nn.GELU(), torch.nn.Linear(width, 10))

    def forward(self, x):
        return self.body(x)

    @classmethod
    def from_checkpoint(cls, path, **config):
        model = cls(**config)
        state = torch.load(path)
        model.load_state_dict(state["model"] if "model" in state else state)
        return model
