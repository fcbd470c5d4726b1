"""Packed token windows over a uint16 memmap (torch Dataset)."""
import numpy as np
import torch
from torch.utils.data import Dataset


class PackedTokens(Dataset):
    def __init__(self, path: str, seq_len: int):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.tokens) - 1) // self.seq_len

    def __getitem__(self, i):
        s = i * self.seq_len
        window = torch.from_numpy(self.tokens[s:s + self.seq_len + 1].astype(np.int64))
        return window[:-1], window[1:]
