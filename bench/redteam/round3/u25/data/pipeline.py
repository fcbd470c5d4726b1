import torch
from torch.utils.data import DataLoader, TensorDataset


def build_loader(batch_size):
    ds = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 1))
    return DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=4)
