import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class ImageDataModule:
    def __init__(self, batch_size):
        self.batch_size = batch_size
        self.ds = TensorDataset(torch.randn(1000, 3, 32, 32), torch.randint(0, 10, (1000,)))

    def train_dataloader(self):
        sampler = DistributedSampler(self.ds, shuffle=True)
        return DataLoader(self.ds, batch_size=self.batch_size, sampler=sampler, num_workers=2)
