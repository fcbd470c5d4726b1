import logging
import os
import time

import torch
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

from ..utils.dist import is_main_process, master_only
from ..utils.metrics import AverageMeter

logger = logging.getLogger("clsx")


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, val_loader, device, work_dir, max_epochs,
                 log_interval=50):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device
        self.work_dir = work_dir
        self.max_epochs = max_epochs
        self.log_interval = log_interval
        self.writer = SummaryWriter(os.path.join(work_dir, "tb")) if is_main_process() else None
        self.meters = {name: AverageMeter(name) for name in ("train_loss", "val_loss", "val_top1")}
        self.best_top1 = 0.0

    def fit(self):
        for epoch in range(self.max_epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for meter in self.meters.values():
                meter.reset()
            tic = time.time()
            self.train_epoch(epoch)
            self.validate()
            self.log_epoch(epoch, time.time() - tic)
            self.save_checkpoint(epoch)

    def train_epoch(self, epoch):
        self.model.train()
        for it, (images, targets) in enumerate(self.train_loader):
            images = images.to(self.device, non_blocking=True)
            targets = targets.to(self.device, non_blocking=True)
            loss = F.cross_entropy(self.model(images), targets, label_smoothing=0.1)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.meters["train_loss"].update(loss.item(), images.size(0))
            if it % self.log_interval == 0 and is_main_process():
                logger.info("epoch %d iter %d loss %.4f", epoch, it, loss.item())
        self.scheduler.step()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        for images, targets in self.val_loader:
            images = images.to(self.device, non_blocking=True)
            targets = targets.to(self.device, non_blocking=True)
            logits = self.model(images)
            self.meters["val_loss"].update(F.cross_entropy(logits, targets).item(), images.size(0))
            top1 = (logits.argmax(1) == targets).float().mean().item() * 100
            self.meters["val_top1"].update(top1, images.size(0))

    @master_only
    def log_epoch(self, epoch, seconds):
        for meter in self.meters.values():
            meter.synchronize()
        logger.info("epoch %d done in %.0fs: %s", epoch, seconds, "  ".join(str(m) for m in self.meters.values()))
        for name, meter in self.meters.items():
            self.writer.add_scalar(name, meter.avg, epoch)

    @master_only
    def save_checkpoint(self, epoch):
        state = {"model": self.model.module.state_dict(), "optimizer": self.optimizer.state_dict(), "epoch": epoch}
        torch.save(state, os.path.join(self.work_dir, "latest.pth"))
        top1 = self.meters["val_top1"].avg
        if top1 > self.best_top1:
            self.best_top1 = top1
            torch.save(state, os.path.join(self.work_dir, "best.pth"))
