import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, ema, device, epoch, log_every=100):
    model.train()
    loader.sampler.set_epoch(epoch)
    for step, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images), targets, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        ema.update(model.module)
        if dist.get_rank() == 0 and step % log_every == 0:
            print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.3f}")


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(2, device=device)
    for images, targets in loader:
        logits = model(images.to(device, non_blocking=True))
        stats[0] += (logits.argmax(1) == targets.to(device)).sum()
        stats[1] += targets.numel()
    dist.all_reduce(stats)
    return (stats[0] / stats[1]).item()
