import os

import numpy as np
import torch
from torch.utils.data import Dataset


class SatelliteTiles(Dataset):
    def __init__(self, root, split="train"):
        self.images = np.load(os.path.join(root, f"{split}_images.npy"), mmap_mode="r")
        self.masks = np.load(os.path.join(root, f"{split}_masks.npy"), mmap_mode="r")

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = torch.from_numpy(np.ascontiguousarray(self.images[i], dtype=np.float32))
        mask = torch.from_numpy(np.ascontiguousarray(self.masks[i], dtype=np.int64))
        return image, mask
