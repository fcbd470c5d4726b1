import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, n_features, hidden, horizon, num_layers=2, dropout=0.1):
        super().__init__()
        self.n_features = n_features
        self.horizon = horizon
        self.encoder = nn.GRU(n_features, hidden, num_layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden, horizon * n_features)

    def forward(self, x):
        out, _ = self.encoder(x)
        return self.head(out[:, -1]).view(x.size(0), self.horizon, self.n_features)
