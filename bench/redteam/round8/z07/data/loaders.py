import os

import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_train_loader(batch_size: int = 32) -> DataLoader:
    ds = TensorDataset(torch.randn(50000, 128), torch.randint(0, 2, (50000,)))
    sampler = DistributedSampler(
        ds,
        num_replicas=int(os.environ.get("WORLD_SIZE", 1)),
        rank=int(os.environ.get("RANK", 0)),
        shuffle=True,
    )
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2)
