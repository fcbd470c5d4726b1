import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from recsys.distributed import init
from recsys.logging_cb import JsonlLogger
from recsys.trainer import Trainer


class TwoTower(nn.Module):
    def __init__(self, n_users=200_000, n_items=50_000, dim=64):
        super().__init__()
        self.users = nn.Embedding(n_users, dim)
        self.items = nn.Embedding(n_items, dim)

    def forward(self, u, i):
        return (self.users(u) * self.items(i)).sum(-1)


if __name__ == "__main__":
    local_rank = init()
    model = DDP(TwoTower().cuda(), device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    n = 2_000_000
    data = TensorDataset(torch.randint(0, 200_000, (n,)), torch.randint(0, 50_000, (n,)),
                         torch.randint(0, 2, (n,)).float())
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=4096, sampler=sampler, num_workers=4)
    Trainer(model, optimizer, loader, sampler, [JsonlLogger("logs/train.jsonl")], epochs=5).fit()
