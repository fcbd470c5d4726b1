import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from strategies import OffloadStrategy


class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(256, 256)

    def training_step(self, batch, i):
        return self.net(batch[0]).pow(2).mean()

    def configure_optimizers(self):
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        return DeepSpeedCPUAdam(self.parameters())


L.Trainer(accelerator="gpu", devices=1, strategy=OffloadStrategy(), max_epochs=1).fit(
    M(), DataLoader(TensorDataset(torch.randn(256, 256)), batch_size=8))
