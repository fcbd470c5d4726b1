import torch
import torch.nn.functional as F


def evaluate(model, val_loader):
    model.eval()
    total, n = 0.0, 0
    no_grad_ctx = torch.inference_mode()
    with no_grad_ctx:
        for x, y in val_loader:
            total += F.cross_entropy(model(x.cuda()), y.cuda(), reduction="sum").item()
            n += y.numel()
    model.train()
    return total / n


class EvalCallback:
    def __init__(self, val_loader):
        self.val_loader = val_loader

    def on_epoch_end(self, trainer):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            trainer.metrics["val_loss"] = evaluate(trainer.model, self.val_loader)
