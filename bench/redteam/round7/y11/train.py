import lightning as L
import torch
from lightning.pytorch.strategies import DeepSpeedStrategy
from torch.utils.data import DataLoader, TensorDataset

from callbacks import CheckpointEvery


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(32, 1)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.l(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters())


ds = TensorDataset(torch.randn(4096, 32), torch.randn(4096, 1))
trainer = L.Trainer(accelerator="gpu", devices=4, strategy=DeepSpeedStrategy(stage=3), callbacks=[CheckpointEvery()])
trainer.fit(Net(), DataLoader(ds, batch_size=32))
