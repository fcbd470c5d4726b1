import lightning as L
import torch
from lightning.pytorch.cli import LightningCLI


class LitModel(L.LightningModule):
    def __init__(self, lr: float = 1e-3):
        super().__init__()
        self.lr = lr
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class DataModule(L.LightningDataModule):
    def train_dataloader(self):
        ds = torch.utils.data.TensorDataset(torch.randn(1024, 32), torch.randn(1024, 1))
        return torch.utils.data.DataLoader(ds, batch_size=32)


if __name__ == "__main__":
    LightningCLI(LitModel, DataModule)
