"""Kinetics-style clips, pre-decoded to uint8 arrays of shape (T, H, W, 3)."""
import csv
import os

import numpy as np
import torch
from torch.utils.data import Dataset

MEAN = torch.tensor([0.43216, 0.394666, 0.37645]).view(3, 1, 1, 1)
STD = torch.tensor([0.22803, 0.22145, 0.216989]).view(3, 1, 1, 1)


class DecodedClips(Dataset):
    def __init__(self, root, split, frames=16, crop=112, train=True):
        with open(os.path.join(root, f"{split}.csv")) as f:
            self.rows = [(r["path"], int(r["label"])) for r in csv.DictReader(f)]
        self.root, self.frames, self.crop, self.train = root, frames, crop, train

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        path, label = self.rows[idx]
        video = np.load(os.path.join(self.root, path), mmap_mode="r")
        t0 = np.random.randint(0, max(1, len(video) - self.frames)) if self.train else max(0, (len(video) - self.frames) // 2)
        clip = torch.from_numpy(np.ascontiguousarray(video[t0:t0 + self.frames]))
        clip = clip.permute(3, 0, 1, 2).float().div_(255)  # C, T, H, W
        _, _, h, w = clip.shape
        y0 = np.random.randint(0, h - self.crop + 1) if self.train else (h - self.crop) // 2
        x0 = np.random.randint(0, w - self.crop + 1) if self.train else (w - self.crop) // 2
        clip = clip[:, :, y0:y0 + self.crop, x0:x0 + self.crop]
        if self.train and np.random.rand() < 0.5:
            clip = clip.flip(-1)
        return (clip - MEAN) / STD, label
