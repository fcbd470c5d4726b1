import math
import sys

import torch

import util.lr_sched as lr_sched
import util.misc as misc


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, args):
    model.train()
    optimizer.zero_grad()
    accum_iter = args.accum_iter
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        if data_iter_step % accum_iter == 0:
            lr = lr_sched.adjust_learning_rate(optimizer, data_iter_step / len(data_loader) + epoch, args)
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(samples), targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        (loss / accum_iter).backward()
        if (data_iter_step + 1) % accum_iter == 0:
            if args.clip_grad is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            optimizer.step()
            optimizer.zero_grad()
        loss_value_reduce = misc.all_reduce_mean(loss_value)
        if data_iter_step % args.print_freq == 0:
            print(f"Epoch [{epoch}] [{data_iter_step}/{len(data_loader)}] loss {loss_value_reduce:.4f} lr {lr:.2e}")
    return {"loss": loss_value_reduce, "lr": lr}


@torch.no_grad()
def evaluate(data_loader, model, device):
    criterion = torch.nn.CrossEntropyLoss()
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for images, target in data_loader:
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            output = model(images)
        loss_sum += criterion(output.float(), target).item() * target.size(0)
        correct += (output.argmax(dim=1) == target).sum().item()
        total += target.size(0)
    acc1 = misc.all_reduce_mean(100.0 * correct / total)
    loss = misc.all_reduce_mean(loss_sum / total)
    print(f"* Acc@1 {acc1:.3f} loss {loss:.3f} ({total} images)")
    return {"acc1": acc1, "loss": loss}
