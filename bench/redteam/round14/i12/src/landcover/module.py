import lightning as L
import torch
import torch.nn.functional as F
import torchmetrics
import torchvision


class LandCoverModule(L.LightningModule):
    def __init__(self, num_classes: int, lr: float, weight_decay: float):
        super().__init__()
        self.save_hyperparameters()
        net = torchvision.models.resnet18(num_classes=num_classes)
        net.conv1 = torch.nn.Conv2d(13, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.net = net
        self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.val_acc(logits, y)
        self.log("val/loss", F.cross_entropy(logits, y), sync_dist=True)
        self.log("val/acc", self.val_acc, on_epoch=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return {"optimizer": opt, "lr_scheduler": sched}
