import torch
from torch.utils.data import TensorDataset

from engine import Trainer
from engine.hooks import SamplerEpochHook

ds = TensorDataset(torch.randn(5000, 20), torch.randint(0, 5, (5000,)))
Trainer(torch.nn.Linear(20, 5), ds, callbacks=[SamplerEpochHook()]).fit(30)
