import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_loader(batch_size):
    ds = TensorDataset(torch.randn(100000, 64), torch.randint(0, 2, (100000,)))
    return DataLoader(ds, batch_size=batch_size, sampler=DistributedSampler(ds, shuffle=True), num_workers=2)
