import numpy as np
import torch
from torch.utils.data import Dataset


class Windows(Dataset):
    """(history, next step) pairs from a (time, lat, lon) array of 2 m temperature."""

    def __init__(self, path, split, history=8):
        arr = np.load(path, mmap_mode="r")
        cut = int(len(arr) * 0.9)
        self.arr = arr[:cut] if split == "train" else arr[cut:]
        self.history = history

    def __len__(self):
        return len(self.arr) - self.history

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.arr[i : i + self.history], dtype=np.float32))
        y = torch.from_numpy(np.array(self.arr[i + self.history], dtype=np.float32))
        return x, y
