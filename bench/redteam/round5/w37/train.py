import torch
import lightning.pytorch as pl

print(f"running on {torch.cuda.get_device_name(0)} x {torch.cuda.device_count()}")
CLASS_WEIGHTS = torch.tensor([1.0, 3.0]).cuda()


class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 2)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y, weight=CLASS_WEIGHTS.to(self.device))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    ds = torch.utils.data.TensorDataset(torch.randn(256, 16), torch.randint(0, 2, (256,)))
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp_fork", max_epochs=1)
    trainer.fit(Lit(), torch.utils.data.DataLoader(ds, batch_size=16))
