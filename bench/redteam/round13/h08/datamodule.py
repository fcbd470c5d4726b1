"""Memory-mapped token blocks for the Lightning runs."""
import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class TokenBlocks(Dataset):
    def __init__(self, path: str, seq_len: int):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.data) - 1) // self.seq_len

    def __getitem__(self, idx):
        start = idx * self.seq_len
        chunk = torch.from_numpy(np.asarray(self.data[start:start + self.seq_len + 1], dtype=np.int64))
        return chunk[:-1], chunk[1:]


class TokenDataModule(L.LightningDataModule):
    def __init__(self, train_path: str, val_path: str, seq_len: int = 2048, batch_size: int = 8,
                 num_workers: int = 4):
        super().__init__()
        self.save_hyperparameters()

    def setup(self, stage: str):
        self.train_set = TokenBlocks(self.hparams.train_path, self.hparams.seq_len)
        self.val_set = TokenBlocks(self.hparams.val_path, self.hparams.seq_len)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.hparams.batch_size, shuffle=True,
                          num_workers=self.hparams.num_workers, pin_memory=True, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.hparams.batch_size,
                          num_workers=self.hparams.num_workers, pin_memory=True)
