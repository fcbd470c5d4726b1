import numpy as np
import torch
from torch.utils.data import Dataset


class TokenBlocks(Dataset):
    """Fixed-length blocks of a uint16 token file (memory-mapped)."""

    def __init__(self, path: str, block: int = 2048):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.block = block

    def __len__(self):
        return len(self.tokens) // self.block

    def __getitem__(self, i):
        chunk = self.tokens[i * self.block: (i + 1) * self.block].astype(np.int64)
        return torch.from_numpy(chunk)
