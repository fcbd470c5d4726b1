import torch
import lightning.pytorch as pl
from callbacks.best_ckpt import SaveBest


class LitNet(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


def main():
    ds = torch.utils.data.TensorDataset(torch.randn(1024, 32), torch.randn(1024, 1))
    dl = torch.utils.data.DataLoader(ds, batch_size=32)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="deepspeed_stage_2", max_epochs=5,
                         callbacks=[SaveBest()])
    trainer.fit(LitNet(), dl, dl)


if __name__ == "__main__":
    main()
