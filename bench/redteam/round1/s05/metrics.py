import torch
import torch.distributed as dist


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    for x, y in loader:
        pred = model(x.to(device)).argmax(-1)
        correct[0] += (pred == y.to(device)).sum()
        correct[1] += y.numel()
    dist.all_reduce(correct, op=dist.ReduceOp.SUM)
    return (correct[0] / correct[1]).item()
