import torch
import torch.nn as nn

from segnet import distributed


class BaseTrainer:
    def __init__(self, model, optimizer, train_loader, val_loader, cfg, device):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.cfg = cfg
        self.device = device
        self.num_classes = cfg["num_classes"]
        self.criterion = nn.CrossEntropyLoss(ignore_index=255)

    def train_one_epoch(self, epoch: int) -> None:
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        for images, masks in self.train_loader:
            images = images.to(self.device, non_blocking=True)
            masks = masks.to(self.device, non_blocking=True)
            loss = self.criterion(self.model(images)["out"], masks)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()

    def fit(self) -> None:
        for epoch in range(self.cfg["epochs"]):
            self.train_one_epoch(epoch)
            if (epoch + 1) % self.cfg["eval_every"] == 0:
                metrics = self.evaluate()
                if distributed.is_main():
                    print(f"epoch {epoch}: val_loss={metrics['loss']:.4f} mIoU={metrics['miou']:.4f}")
                    torch.save(self.model.module.state_dict(), f"deeplab_epoch{epoch}.pt")
