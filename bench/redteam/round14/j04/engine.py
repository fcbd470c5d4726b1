import math

import torch
import torch.distributed as dist


def train_one_epoch(engine, loader, epoch, args):
    engine.train()
    for step, (inputs, labels) in enumerate(loader):
        inputs = inputs.to(engine.device, non_blocking=True)
        labels = labels.to(engine.device, non_blocking=True)
        loss = engine(input_ids=inputs, labels=labels).loss
        engine.backward(loss)
        engine.step()
        if engine.is_gradient_accumulation_boundary() and engine.global_steps % args.log_interval == 0:
            print(f"epoch {epoch} step {engine.global_steps} loss {loss.item():.4f}")
        if args.max_steps and engine.global_steps >= args.max_steps:
            break


@torch.no_grad()
def evaluate(engine, loader, max_batches):
    engine.eval()
    total = torch.zeros(2, device=engine.device)
    for i, (inputs, labels) in enumerate(loader):
        if i >= max_batches:
            break
        inputs, labels = inputs.to(engine.device), labels.to(engine.device)
        total[0] += engine(input_ids=inputs, labels=labels).loss.float()
        total[1] += 1
    dist.all_reduce(total)
    val_loss = (total[0] / total[1]).item()
    return val_loss, math.exp(min(val_loss, 20))
