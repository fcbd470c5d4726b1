import glob
import os

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class PatchDataset(Dataset):
    def __init__(self, root: str, split: str):
        self.files = sorted(glob.glob(os.path.join(root, split, "*", "*.npy")))
        classes = sorted({os.path.basename(os.path.dirname(f)) for f in self.files})
        self.class_to_idx = {c: i for i, c in enumerate(classes)}

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        path = self.files[i]
        x = torch.from_numpy(np.load(path).astype(np.float32) / 10000.0)
        return x, self.class_to_idx[os.path.basename(os.path.dirname(path))]


class PatchDataModule(L.LightningDataModule):
    def __init__(self, root: str, batch_size: int, num_workers: int):
        super().__init__()
        self.root, self.batch_size, self.num_workers = root, batch_size, num_workers

    def setup(self, stage=None):
        self.train_set = PatchDataset(self.root, "train")
        self.val_set = PatchDataset(self.root, "val")

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True,
                          num_workers=self.num_workers, pin_memory=True, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size, num_workers=self.num_workers)
