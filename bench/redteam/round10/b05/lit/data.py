"""Token shards as a LightningDataModule."""
import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Shards(Dataset):
    def __init__(self, path: str, seq_len: int):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.tokens) - 1) // self.seq_len

    def __getitem__(self, i):
        s = i * self.seq_len
        chunk = torch.from_numpy(self.tokens[s:s + self.seq_len + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


class TokenDataModule(L.LightningDataModule):
    def __init__(self, path: str = "/data/tokens/train.bin", seq_len: int = 1024, batch_size: int = 8, num_workers: int = 4):
        super().__init__()
        self.save_hyperparameters()

    def setup(self, stage=None):
        self.train_set = Shards(self.hparams.path, self.hparams.seq_len)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.hparams.batch_size, shuffle=True,
                          num_workers=self.hparams.num_workers, pin_memory=True)
