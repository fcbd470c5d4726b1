import time

import torch
import torch.nn.functional as F

from utils.distributed import reduce_mean


def train_one_epoch(model, loader, optimizer, scaler, lr_scheduler, device, epoch, print_freq):
    model.train()
    end = time.time()
    for i, (clips, targets) in enumerate(loader):
        clips, targets = clips.to(device, non_blocking=True), targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(clips), targets)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        lr_scheduler.step()
        if i % print_freq == 0:
            loss_avg = reduce_mean(loss.detach()).item()
            print(f"Epoch: [{epoch}][{i}/{len(loader)}] loss {loss_avg:.4f} time {time.time() - end:.2f}s")
        end = time.time()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    for clips, targets in loader:
        clips, targets = clips.to(device, non_blocking=True), targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            preds = model(clips).argmax(dim=1)
        correct[0] += (preds == targets).sum()
        correct[1] += targets.numel()
    correct = reduce_mean(correct)
    return (100.0 * correct[0] / correct[1]).item()
