import torch
from torch.utils.data import TensorDataset


def build_model():
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))


def build_dataset():
    return TensorDataset(torch.randn(60000, 784), torch.randint(0, 10, (60000,)))
