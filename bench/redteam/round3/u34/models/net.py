import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)

    @classmethod
    def from_checkpoint(cls, path):
        net = cls()
        net.load_state_dict(torch.load(path))
        return net
