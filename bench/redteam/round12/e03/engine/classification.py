import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

from utils.dist import is_main_process

from .base import BaseTrainer


class ClassificationTrainer(BaseTrainer):
    def __init__(self, model, optimizer, lr_schedule, train_loader, val_loader, epochs, output_dir):
        super().__init__(epochs)
        self.model = model
        self.optimizer = optimizer
        self.lr_schedule = lr_schedule
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.output_dir = output_dir
        self.scaler = torch.amp.GradScaler("cuda")

    def before_epoch(self, epoch):
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr_schedule[epoch]

    def train_one_epoch(self, epoch):
        total, n = 0.0, 0
        for images, targets in self.train_loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(self.model(images), targets, label_smoothing=0.1)
            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            total += loss.item()
            n += 1
        return {"train_loss": total / max(n, 1)}

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = torch.zeros((), device="cuda")
        seen = torch.zeros((), device="cuda")
        for images, targets in self.val_loader:
            with torch.autocast("cuda", dtype=torch.float16):
                logits = self.model(images)
            correct += (logits.argmax(1) == targets).sum()
            seen += targets.numel()
        dist.all_reduce(correct)
        dist.all_reduce(seen)
        return {"top1": (100.0 * correct / seen).item()}

    def after_epoch(self, epoch, train_stats, eval_stats):
        if is_main_process():
            print(f"epoch {epoch}: {train_stats} {eval_stats}", flush=True)
            torch.save({"model": self.model.module.state_dict(), "epoch": epoch},
                       os.path.join(self.output_dir, "checkpoint.pth"))
