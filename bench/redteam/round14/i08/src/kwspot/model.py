import torch.nn as nn


class KWSNet(nn.Module):
    def __init__(self, n_mels: int = 40, num_classes: int = 35, width: int = 64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(n_mels, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2, dilation=1), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, 2 * width, 3, padding=2, dilation=2), nn.BatchNorm1d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        return self.head(self.body(x).squeeze(-1))
