import lightning as L
import torch
from callbacks.metrics import GlobalMetric


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    ds = torch.utils.data.TensorDataset(torch.randn(512, 32), torch.randn(512, 1))
    dl = torch.utils.data.DataLoader(ds, batch_size=8)
    trainer = L.Trainer(devices=4, strategy="ddp", callbacks=[GlobalMetric()])
    trainer.fit(Model(), dl, dl)


if __name__ == "__main__":
    main()
