import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)

    @classmethod
    def from_exported(cls, path):
        model = cls()
        model.load_state_dict(torch.load(path))
        return model
