import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class RandomDM(L.LightningDataModule):
    def setup(self, stage=None):
        self.ds = TensorDataset(torch.randn(1024, 32), torch.randn(1024, 1))

    def train_dataloader(self):
        return DataLoader(self.ds, batch_size=16, shuffle=True, num_workers=4)
