import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from lit.strategy import make_strategy


class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 16)

    def training_step(self, b, i):
        return self.net(b[0]).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


L.Trainer(accelerator="gpu", devices=2, strategy=make_strategy()).fit(M(), DataLoader(TensorDataset(torch.randn(64, 16)), batch_size=2))
