import torch
import torch.distributed as dist


class EvalMixin:
    def evaluate(self) -> dict:
        self.model.eval()
        total_loss = torch.zeros((), device=self.device)
        inter = torch.zeros(self.num_classes, device=self.device)
        union = torch.zeros(self.num_classes, device=self.device)
        for images, masks in self.val_loader:
            images = images.to(self.device, non_blocking=True)
            masks = masks.to(self.device, non_blocking=True)
            logits = self.model(images)["out"]
            total_loss = total_loss + self.criterion(logits, masks)
            pred = logits.argmax(1)
            valid = masks != 255
            for c in range(self.num_classes):
                p, t = (pred == c) & valid, (masks == c) & valid
                inter[c] += (p & t).sum()
                union[c] += (p | t).sum()
        stats = torch.stack([total_loss.detach(), torch.tensor(float(len(self.val_loader)), device=self.device)])
        dist.all_reduce(stats)
        dist.all_reduce(inter)
        dist.all_reduce(union)
        iou = inter / union.clamp(min=1)
        return {"loss": (stats[0] / stats[1]).item(), "miou": iou.mean().item()}
