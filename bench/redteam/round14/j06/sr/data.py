"""DIV2K-style paired patches: HR crops and their bicubic LR counterparts."""
import os
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class PairedPatches(Dataset):
    def __init__(self, root, split, scale=4, patch=48, repeat=20, train=True):
        self.hr_dir = os.path.join(root, f"DIV2K_{split}_HR")
        self.lr_dir = os.path.join(root, f"DIV2K_{split}_LR_bicubic", f"X{scale}")
        self.names = sorted(n for n in os.listdir(self.hr_dir) if n.endswith(".png"))
        self.scale, self.patch, self.train = scale, patch, train
        self.repeat = repeat if train else 1

    def __len__(self):
        return len(self.names) * self.repeat

    def __getitem__(self, idx):
        name = self.names[idx % len(self.names)]
        hr = np.asarray(Image.open(os.path.join(self.hr_dir, name)).convert("RGB"))
        lr = np.asarray(Image.open(os.path.join(self.lr_dir, name.replace(".png", f"x{self.scale}.png"))).convert("RGB"))
        if self.train:
            y, x = random.randrange(lr.shape[0] - self.patch), random.randrange(lr.shape[1] - self.patch)
            lr = lr[y:y + self.patch, x:x + self.patch]
            hr = hr[y * self.scale:(y + self.patch) * self.scale, x * self.scale:(x + self.patch) * self.scale]
            if random.random() < 0.5:
                lr, hr = lr[:, ::-1], hr[:, ::-1]
        to_t = lambda a: torch.from_numpy(np.ascontiguousarray(a)).permute(2, 0, 1).float().div_(255)
        return to_t(lr), to_t(hr)
