"""ViT classifier as a LightningModule."""
import lightning as L
import torch
import torch.nn.functional as F
import torchvision


class ViTModule(L.LightningModule):
    def __init__(self, arch: str = "vit_b_16", num_classes: int = 1000, lr: float = 1e-3,
                 weight_decay: float = 0.05, warmup_epochs: int = 10):
        super().__init__()
        self.save_hyperparameters()
        self.net = getattr(torchvision.models, arch)(num_classes=num_classes)

    def training_step(self, batch, batch_idx):
        images, labels = batch
        loss = F.cross_entropy(self.net(images), labels, label_smoothing=0.1)
        self.log("train/loss", loss, on_step=True, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        images, labels = batch
        acc = (self.net(images).argmax(1) == labels).float().mean()
        self.log("val/acc", acc, sync_dist=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return [opt], [sched]
