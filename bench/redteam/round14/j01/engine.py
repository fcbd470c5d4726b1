import time

import torch
import torch.nn.functional as F

from utils.dist import all_reduce_sum


def train_one_epoch(model, criterion, loader, optimizer, device, epoch, args, lr_schedule):
    model.train()
    start = time.time()
    steps_per_epoch = len(loader)
    for it, (images, targets) in enumerate(loader):
        for group in optimizer.param_groups:
            group["lr"] = lr_schedule[epoch * steps_per_epoch + it]
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
            loss = criterion(model(images), targets)
        loss_value = loss.item()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if args.clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        optimizer.step()
        if it % args.print_freq == 0:
            lr = optimizer.param_groups[0]["lr"]
            print(f"Epoch [{epoch}] [{it}/{steps_per_epoch}] loss {loss_value:.4f} lr {lr:.2e} ({time.time() - start:.0f}s)")
    return {"loss": loss_value, "lr": optimizer.param_groups[0]["lr"]}


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    loss_sum, correct1, correct5, count = 0.0, 0.0, 0.0, 0.0
    for images, targets in loader:
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(images).float()
        loss_sum += F.cross_entropy(logits, targets, reduction="sum").item()
        top5 = logits.topk(5, dim=1).indices
        correct1 += (top5[:, 0] == targets).sum().item()
        correct5 += (top5 == targets[:, None]).any(dim=1).sum().item()
        count += targets.numel()
    loss_sum, correct1, correct5, count = all_reduce_sum([loss_sum, correct1, correct5, count], device)
    stats = {"loss": loss_sum / count, "acc1": 100.0 * correct1 / count, "acc5": 100.0 * correct5 / count}
    print(f"* Acc@1 {stats['acc1']:.3f} Acc@5 {stats['acc5']:.3f} loss {stats['loss']:.3f}")
    return stats
