import torch
import torch.distributed as dist
import torch.nn.functional as F


class EvalHook:
    def __init__(self, val_loader, interval=1):
        self.val_loader = val_loader
        self.interval = interval
        self.history = []

    def after_epoch(self, runner):
        if (runner.epoch + 1) % self.interval:
            return
        model = runner.model
        model.eval()
        total_loss = torch.zeros((), device=runner.device)
        correct = torch.zeros((), device=runner.device)
        seen = 0
        for images, targets in self.val_loader:
            images = images.to(runner.device, non_blocking=True)
            targets = targets.to(runner.device, non_blocking=True)
            logits = model(images)
            total_loss = total_loss + F.cross_entropy(logits, targets, reduction="sum")
            correct = correct + (logits.argmax(1) == targets).sum()
            seen += targets.numel()
        stats = torch.stack([total_loss, correct, torch.tensor(float(seen), device=runner.device)])
        dist.all_reduce(stats)
        self.history.append((runner.epoch, (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()))
        if runner.rank == 0:
            epoch, loss, acc = self.history[-1]
            print(f"val epoch {epoch}: loss {loss:.4f} acc {acc:.4f}")
