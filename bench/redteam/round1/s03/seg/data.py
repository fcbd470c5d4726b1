import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class CityScapes(Dataset):
    def __init__(self, root, split, crop):
        self.images = sorted(glob.glob(os.path.join(root, split, "*.npy")))
        self.crop = crop

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        arr = np.load(self.images[i])
        return torch.from_numpy(arr[:3, : self.crop, : self.crop]).float(), torch.from_numpy(arr[3, : self.crop, : self.crop]).long()


def get_dataloaders(cfg):
    train_set = CityScapes(cfg.root, "train", cfg.crop)
    val_set = CityScapes(cfg.root, "val", cfg.crop)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.num_workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, shuffle=False, num_workers=cfg.num_workers)
    return train_loader, val_loader
