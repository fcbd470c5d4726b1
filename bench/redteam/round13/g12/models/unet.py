import lightning as L
import segmentation_models_pytorch as smp
import torch
import torch.nn.functional as F


class LitUNet(L.LightningModule):
    def __init__(self, num_classes: int = 3, lr: float = 3e-4):
        super().__init__()
        self.save_hyperparameters()
        self.net = smp.Unet("resnet34", encoder_weights=None, in_channels=1, classes=num_classes)
        self.dice = smp.losses.DiceLoss(mode="multiclass")

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        image, mask = batch
        logits = self(image)
        loss = F.cross_entropy(logits, mask) + self.dice(logits, mask)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        image, mask = batch
        logits = self(image)
        self.log("val/dice_loss", self.dice(logits, mask), sync_dist=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return {"optimizer": opt, "lr_scheduler": sched}
