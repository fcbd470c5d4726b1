"""Random token batches, enough to exercise the deepspeed pipeline schedule."""
import torch
from torch.utils.data import Dataset


class RandomTokens(Dataset):
    def __init__(self, n: int, seq_len: int, vocab: int):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (n, seq_len + 1), generator=g)

    def __len__(self):
        return self.ids.size(0)

    def __getitem__(self, i):
        row = self.ids[i]
        return row[:-1], row[1:]
