import torch
import torch.nn.functional as F


def evaluate(model, val_loader):
    model.eval()
    total, n = 0.0, 0
    for x, y in val_loader:
        logits = model(x.cuda())
        total = total + F.cross_entropy(logits, y.cuda(), reduction="sum")
        n += y.numel()
    model.train()
    return total / n


class EvalCallback:
    def __init__(self, val_loader):
        self.val_loader = val_loader

    def on_epoch_end(self, trainer):
        trainer.metrics["val_loss"] = evaluate(trainer.model, self.val_loader).item()
