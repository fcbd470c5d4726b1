import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def build_train_loader(batch_size):
    ds = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
    sampler = DistributedSampler(ds, shuffle=True)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2)
