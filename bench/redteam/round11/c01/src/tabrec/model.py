import torch
import torch.nn as nn


class NeuMF(nn.Module):
    def __init__(self, num_users: int, num_items: int, dim: int, mlp: list[int]):
        super().__init__()
        self.user_gmf = nn.Embedding(num_users, dim)
        self.item_gmf = nn.Embedding(num_items, dim)
        self.user_mlp = nn.Embedding(num_users, dim)
        self.item_mlp = nn.Embedding(num_items, dim)
        layers, width = [], 2 * dim
        for hidden in mlp:
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        self.mlp = nn.Sequential(*layers)
        self.head = nn.Linear(dim + width, 1)

    def forward(self, users, items):
        gmf = self.user_gmf(users) * self.item_gmf(items)
        mlp = self.mlp(torch.cat([self.user_mlp(users), self.item_mlp(items)], dim=-1))
        return self.head(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)
