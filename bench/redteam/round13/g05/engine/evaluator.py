import torch
import torch.nn.functional as F

from utils.dist import reduce_sum


class Evaluator:
    """Top-1 / top-5 accuracy and loss over the validation shard of every rank."""

    def __init__(self, loader, device):
        self.loader = loader
        self.device = device

    @torch.no_grad()
    def evaluate(self, model):
        model.eval()
        stats = torch.zeros(4, device=self.device)  # loss_sum, top1, top5, count
        for images, targets in self.loader:
            images = images.to(self.device, non_blocking=True)
            targets = targets.to(self.device, non_blocking=True)
            logits = model(images)
            top5 = logits.topk(5, dim=1).indices
            stats[0] += F.cross_entropy(logits, targets, reduction="sum")
            stats[1] += (top5[:, 0] == targets).sum()
            stats[2] += (top5 == targets[:, None]).any(dim=1).sum()
            stats[3] += targets.numel()
        stats = reduce_sum(stats)
        model.train()
        n = stats[3].item()
        return {"val_loss": stats[0].item() / n, "top1": stats[1].item() / n, "top5": stats[2].item() / n}
