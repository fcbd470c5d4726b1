import torch
from torch.utils.data import TensorDataset


def build_train_set():
    return TensorDataset(torch.randn(5000, 128), torch.randint(0, 10, (5000,)))
