import lightning as L
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from torch.utils.data import DataLoader, TensorDataset

from factory import build_trainer


class LM(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(1024, 1024)

    def training_step(self, batch, batch_idx):
        (x,) = batch
        return self.net(x).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        (x,) = batch
        self.log("val/loss", self.net(x).pow(2).mean(), sync_dist=True)

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-4)


if __name__ == "__main__":
    data = DataLoader(TensorDataset(torch.randn(1024, 1024)), batch_size=4)
    build_trainer(devices=4).fit(LM(), data, data)
