import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_loader(bs):
    ds = TensorDataset(torch.randn(512, 8))
    return DataLoader(ds, batch_size=bs, sampler=DistributedSampler(ds, shuffle=True))
