import time

import torch
import torch.nn.functional as F

from utils.dist import reduce_sum


def train_one_epoch(model, loader, optimizer, scheduler, epoch, args, device):
    model.train()
    tic, seen, loss_sum = time.time(), 0, 0.0
    for step, (feats, labels) in enumerate(loader):
        feats = feats.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
            loss = F.cross_entropy(model(feats), labels, label_smoothing=args.label_smoothing)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        optimizer.step()
        scheduler.step()
        loss_sum += loss.item() * labels.size(0)
        seen += labels.size(0)
        if step % args.log_interval == 0:
            print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f} "
                  f"lr {scheduler.get_last_lr()[0]:.2e} {seen / (time.time() - tic):.0f} clips/s")
    loss_sum, seen = reduce_sum(loss_sum, seen, device=device)
    return loss_sum / seen


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for feats, labels in loader:
        feats = feats.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        correct += (model(feats).argmax(dim=1) == labels).sum().item()
        total += labels.size(0)
    correct, total = reduce_sum(correct, total, device=device)
    return 100.0 * correct / total
