import torch
import torch.distributed as dist
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader, device):
    """Mean token loss over the validation split, summed over all ranks."""
    model.eval()
    loss_sum = torch.zeros((), device=device)
    tokens = torch.zeros((), device=device)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        logits = model(x)
        loss_sum += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum")
        tokens += y.numel()
    dist.all_reduce(loss_sum)
    dist.all_reduce(tokens)
    model.train()
    return (loss_sum / tokens).item()
