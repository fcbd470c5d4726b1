import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(512, 10)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class DataModule(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(TensorDataset(torch.randn(4096, 512), torch.randint(0, 10, (4096,))), batch_size=4)
