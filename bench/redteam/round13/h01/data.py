"""Fixed-length token blocks read from a nanoGPT-style uint16 .bin file."""
import numpy as np
import torch
from torch.utils.data import Dataset


class TokenBlocks(Dataset):
    """Non-overlapping blocks of `seq_len` tokens; the model shifts the labels itself."""

    def __init__(self, path: str, seq_len: int):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    def __len__(self) -> int:
        return (len(self.tokens) - 1) // self.seq_len

    def __getitem__(self, idx: int) -> torch.Tensor:
        start = idx * self.seq_len
        block = np.asarray(self.tokens[start:start + self.seq_len], dtype=np.int64)
        return torch.from_numpy(block)
