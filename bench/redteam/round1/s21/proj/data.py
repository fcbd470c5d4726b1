import torch
from torch.utils.data import DataLoader, TensorDataset


def build_loaders(batch_size):
    train = TensorDataset(torch.randn(20000, 32), torch.randint(0, 4, (20000,)))
    val = TensorDataset(torch.randn(2000, 32), torch.randint(0, 4, (2000,)))
    return (DataLoader(train, batch_size=batch_size, shuffle=True, num_workers=2),
            DataLoader(val, batch_size=batch_size * 2))
