import copy
from functools import cached_property

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from core.data import Windows
from core.runtime import Runtime


class Forecaster(nn.Module):
    def __init__(self, history=8, width=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(history, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, 1, 3, padding=1))

    def forward(self, x):
        return x[:, -1] + self.net(x).squeeze(1)


class ModelEMA:
    def __init__(self, model, decay=0.999):
        self.shadow = copy.deepcopy(model).eval().requires_grad_(False)
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for s, p in zip(self.shadow.parameters(), model.parameters()):
            s.lerp_(p, 1.0 - self.decay)


class Experiment:
    """Everything a run needs, built on first use so the entry points stay short."""

    def __init__(self, args):
        self.args = args
        self.device = Runtime.setup()

    @cached_property
    def train_set(self):
        return Windows(self.args.data, "train")

    @cached_property
    def train_sampler(self):
        return DistributedSampler(self.train_set, shuffle=True)

    @cached_property
    def train_loader(self):
        return DataLoader(self.train_set, batch_size=self.args.batch_size, sampler=self.train_sampler,
                          num_workers=4, pin_memory=True, drop_last=True)

    @cached_property
    def val_loader(self):
        val_set = Windows(self.args.data, "val")
        return DataLoader(val_set, batch_size=64, sampler=DistributedSampler(val_set, shuffle=False), num_workers=2)

    @cached_property
    def model(self):
        return DDP(Forecaster().to(self.device), device_ids=[self.device.index])

    @cached_property
    def optimizer(self):
        return torch.optim.AdamW(self.model.parameters(), lr=self.args.lr, weight_decay=1e-4)

    @cached_property
    def ema(self):
        return ModelEMA(self.model.module)
