import lightning as L
import torch
from data.dm import RandomDM


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    L.Trainer(devices=4, strategy="ddp", max_epochs=5).fit(Model(), datamodule=RandomDM())
