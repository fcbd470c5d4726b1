import numpy as np
import torch
from torch.utils.data import Dataset


class PackedTokens(Dataset):
    def __init__(self, path: str, seq_len: int = 4096):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.data) // self.seq_len

    def __getitem__(self, i):
        s = self.seq_len
        return torch.from_numpy(self.data[i * s:(i + 1) * s].astype(np.int64))
