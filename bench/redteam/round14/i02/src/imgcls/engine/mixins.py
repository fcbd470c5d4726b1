import os

import torch
import torch.distributed as dist


class TrainLoopMixin:
    def train_one_epoch(self) -> float:
        self.model.train()
        running = torch.zeros((), device="cuda")
        for images, targets in self.train_loader:
            images = images.cuda(non_blocking=True)
            targets = targets.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = self.criterion(self.model(images), targets)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            running += loss.detach()
        return running.item() / max(1, len(self.train_loader))


class EvalMixin:
    @torch.no_grad()
    def validate(self) -> float:
        self.model.eval()
        stats = torch.zeros(2, device="cuda")
        for images, targets in self.val_loader:
            images = images.cuda(non_blocking=True)
            targets = targets.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = self.model(images)
            stats[0] += (logits.argmax(1) == targets).sum()
            stats[1] += targets.numel()
        dist.all_reduce(stats)
        return (stats[0] / stats[1]).item()


class CheckpointMixin:
    def save(self, name: str) -> None:
        os.makedirs(self.cfg["output_dir"], exist_ok=True)
        torch.save({
            "epoch": self.epoch,
            "model": self.model.module.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
        }, os.path.join(self.cfg["output_dir"], name))
