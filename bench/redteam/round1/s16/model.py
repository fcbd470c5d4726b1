import torch.nn as nn


class Enhancer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(1, 64, 9, padding=4), nn.PReLU(), nn.Conv1d(64, 1, 9, padding=4))

    def forward(self, x):
        return self.net(x)
