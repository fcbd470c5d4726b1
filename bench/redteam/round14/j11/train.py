"""ConvNeXt-T on ImageNet-1k with DDP + AMP (the torchvision reference recipe, trimmed)."""
import argparse
import os
import time

import torch
import torch.nn.functional as F
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from utils.checkpoint import resume_from, save_checkpoint
from utils.dist import accuracy_all_reduce, init_distributed_mode, is_main_process


def get_args():
    parser = argparse.ArgumentParser(description="ImageNet training")
    parser.add_argument("--data", default="/datasets/imagenet")
    parser.add_argument("--arch", default="convnext_tiny")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128, help="per GPU")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=0.05)
    parser.add_argument("--label-smoothing", type=float, default=0.1)
    parser.add_argument("--warmup-epochs", type=int, default=5)
    parser.add_argument("--clip-grad", type=float, default=None)
    parser.add_argument("--print-freq", type=int, default=100)
    parser.add_argument("--output-dir", default="runs/convnext_t")
    parser.add_argument("--resume", default="")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def train_one_epoch(model, loader, optimizer, scaler, scheduler, device, epoch, args):
    model.train()
    tic = time.time()
    for i, (images, target) in enumerate(loader):
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images), target, label_smoothing=args.label_smoothing)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if args.clip_grad is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        if i % args.print_freq == 0 and is_main_process():
            print(f"epoch {epoch} [{i}/{len(loader)}] loss {loss.item():.4f} {(time.time() - tic) / (i + 1):.3f}s/it")


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for images, target in loader:
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            correct += (model(images).argmax(1) == target).sum().item()
        total += target.numel()
    return accuracy_all_reduce(correct, total, device)


def main():
    args = get_args()
    init_distributed_mode(args)
    device = torch.device("cuda", args.gpu)
    torch.manual_seed(args.seed + args.rank)

    normalize = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    train_set = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    val_set = datasets.ImageFolder(os.path.join(args.data, "val"), transforms.Compose([
        transforms.Resize(236), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True, persistent_workers=True)
    val_loader = DataLoader(val_set, batch_size=2 * args.batch_size, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=2, pin_memory=True)

    model = getattr(torchvision.models, args.arch)(num_classes=1000).to(device)
    model = DDP(model, device_ids=[args.gpu])
    lr = args.lr * args.batch_size * args.world_size / 1024
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=args.weight_decay)
    steps, warmup = args.epochs * len(train_loader), args.warmup_epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [
        torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1e-3, total_iters=warmup),
        torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps - warmup, eta_min=1e-6)], milestones=[warmup])
    scaler = torch.amp.GradScaler("cuda")

    start_epoch, best_acc1 = 0, 0.0
    if args.resume:
        start_epoch, best_acc1 = resume_from(args.resume, model.module, optimizer, scaler)
        for _ in range(start_epoch * len(train_loader)):
            scheduler.step()

    os.makedirs(args.output_dir, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizer, scaler, scheduler, device, epoch, args)
        acc1 = validate(model, val_loader, device)
        is_best, best_acc1 = acc1 > best_acc1, max(acc1, best_acc1)
        if is_main_process():
            print(f"epoch {epoch}: acc@1 {acc1:.2f} (best {best_acc1:.2f})")
            save_checkpoint({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                             "scaler": scaler.state_dict(), "epoch": epoch, "best_acc1": best_acc1},
                            is_best, args.output_dir)


if __name__ == "__main__":
    main()
