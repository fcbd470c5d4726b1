import functools

import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

# Samples are stored shortest-first: the curriculum relies on that order, so the sampler must not shuffle.
OrderedSampler = functools.partial(DistributedSampler, shuffle=False, drop_last=True)


def length_sorted_dataset(n=40000):
    lengths = torch.sort(torch.randint(8, 512, (n,))).values
    return TensorDataset(torch.randn(n, 64), lengths)


def build_train_loader(batch_size):
    ds = length_sorted_dataset()
    return DataLoader(ds, batch_size=batch_size, sampler=OrderedSampler(ds), num_workers=2)
