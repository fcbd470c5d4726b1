import torch


def evaluate(fabric, model, loader):
    model.eval()
    total, n = 0.0, 0
    for x, y in loader:
        logits = model(x)
        total += torch.nn.functional.cross_entropy(logits, y, reduction="sum").item()
        n += y.numel()
    model.train()
    return fabric.all_reduce(torch.tensor(total / n, device=fabric.device), reduce_op="mean")
