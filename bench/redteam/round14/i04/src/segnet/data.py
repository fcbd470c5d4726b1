import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class TileDataset(Dataset):
    def __init__(self, root: str, split: str):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        sample = np.load(self.files[i])
        image = torch.from_numpy(sample["image"]).float().div_(255.0)
        mask = torch.from_numpy(sample["mask"]).long()
        return image, mask


def build_loaders(data_cfg: dict):
    train_set = TileDataset(data_cfg["root"], "train")
    val_set = TileDataset(data_cfg["root"], "val")
    train_loader = DataLoader(train_set, batch_size=data_cfg["batch_size"],
                              sampler=DistributedSampler(train_set, shuffle=True),
                              num_workers=data_cfg["num_workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=data_cfg["batch_size"],
                            sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=data_cfg["num_workers"], pin_memory=True)
    return train_loader, val_loader
