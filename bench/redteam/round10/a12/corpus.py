import numpy as np
import torch
from torch.utils.data import Dataset


class PackedTokens(Dataset):
    """GPT-2 token ids packed into one uint16 file, cut into fixed windows."""

    def __init__(self, path, seq_len):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.tokens) // self.seq_len

    def __getitem__(self, i):
        window = self.tokens[i * self.seq_len:(i + 1) * self.seq_len].astype(np.int64)
        return {"input_ids": torch.from_numpy(window)}
