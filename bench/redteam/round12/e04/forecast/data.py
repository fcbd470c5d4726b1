import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class WindowDataset(Dataset):
    def __init__(self, path, split, context, horizon):
        series = np.load(path).astype(np.float32)
        n = len(series)
        bounds = {"train": (0, int(0.7 * n)), "val": (int(0.7 * n) - context, int(0.8 * n))}[split]
        self.series = torch.from_numpy(series[bounds[0]:bounds[1]])
        self.context, self.horizon = context, horizon

    def __len__(self):
        return len(self.series) - self.context - self.horizon + 1

    def __getitem__(self, i):
        x = self.series[i:i + self.context]
        y = self.series[i + self.context:i + self.context + self.horizon]
        return x, y


def make_loaders(cfg):
    train_set = WindowDataset(cfg["data"], "train", cfg["context"], cfg["horizon"])
    val_set = WindowDataset(cfg["data"], "val", cfg["context"], cfg["horizon"])
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=cfg["seed"])
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=train_sampler, num_workers=4,
                              drop_last=True, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=cfg["batch_size"], sampler=val_sampler, num_workers=4)
    return train_loader, val_loader
