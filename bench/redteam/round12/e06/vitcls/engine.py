import math

import torch
import torch.distributed as dist
import torch.nn.functional as F


class Trainer:
    """Fine-tuning loop. `model` is the DDP wrapper."""

    def __init__(self, model, optimizer, train_loader, val_loader, epochs, warmup_steps, compile_model=True,
                 mixup_alpha=0.8):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.epochs = epochs
        self.warmup_steps = warmup_steps
        self.total_steps = epochs * len(train_loader)
        self.mixup_alpha = mixup_alpha
        self.base_lrs = [g["lr"] for g in optimizer.param_groups]
        self.step_num = 0
        # torch 2.0 graph-breaks on DDP's forward hooks, so compile the bare network
        self.forward_fn = torch.compile(model.module) if compile_model else model

    def _set_lr(self):
        s = self.step_num
        scale = s / self.warmup_steps if s < self.warmup_steps else \
            0.5 * (1 + math.cos(math.pi * (s - self.warmup_steps) / (self.total_steps - self.warmup_steps)))
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * scale

    def _mixup(self, x, y, num_classes):
        lam = torch.distributions.Beta(self.mixup_alpha, self.mixup_alpha).sample().item()
        perm = torch.randperm(x.size(0), device=x.device)
        y1 = F.one_hot(y, num_classes).float()
        return lam * x + (1 - lam) * x[perm], lam * y1 + (1 - lam) * y1[perm]

    def train_step(self, images, targets):
        images, soft = self._mixup(images, targets, self.model.module.num_classes)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = self.forward_fn(images)
            loss = torch.sum(-soft * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.step_num += 1
        return loss.detach()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = torch.zeros((), device="cuda")
        total = torch.zeros((), device="cuda")
        for images, targets in self.val_loader:
            images, targets = images.cuda(non_blocking=True), targets.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                correct += (self.model(images).argmax(-1) == targets).sum()
            total += targets.numel()
        dist.all_reduce(correct)
        dist.all_reduce(total)
        self.model.train()
        return (correct / total).item()

    def fit(self, log=print):
        for epoch in range(self.epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for images, targets in self.train_loader:
                images, targets = images.cuda(non_blocking=True), targets.cuda(non_blocking=True)
                self._set_lr()
                loss = self.train_step(images, targets)
            acc = self.evaluate()
            log(f"epoch {epoch}: last loss {loss.item():.4f} val acc {acc:.4f}")
