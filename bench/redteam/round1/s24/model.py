import lightning.pytorch as pl
import torch
import torch.nn as nn
import torchmetrics


class Classifier(pl.LightningModule):
    def __init__(self, num_classes=10, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 512), nn.ReLU(), nn.Linear(512, num_classes))
        self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, sync_dist=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.val_acc.update(self.net(x).argmax(-1), y)

    def on_validation_epoch_end(self):
        acc = self.val_acc.compute()
        if self.trainer.is_global_zero:
            self.log("val_acc", acc, sync_dist=True)
            print(f"val acc {acc:.4f}")
        self.val_acc.reset()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
