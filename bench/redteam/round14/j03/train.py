"""Keyword spotting on Speech Commands v2 with a ResNet over log-mel features."""
import argparse
import json
import os

import torch
import torch.nn as nn
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_loaders
from engine import evaluate, train_one_epoch
from utils.dist import get_rank, get_world_size, init_distributed_mode, is_main_process


def parse_args():
    p = argparse.ArgumentParser(description="KWS training")
    p.add_argument("--data-root", dest="data_root", default="/data/speech_commands_v2/logmel40")
    p.add_argument("--num-frames", dest="num_frames", type=int, default=98)
    p.add_argument("--arch", default="resnet18", choices=["resnet18", "resnet34", "resnet50"])
    p.add_argument("--num-classes", dest="num_classes", type=int, default=35)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--batch-size", dest="batch_size", type=int, default=128, help="per GPU")
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--warmup-steps", dest="warmup_steps", type=int, default=500)
    p.add_argument("--label-smoothing", dest="label_smoothing", type=float, default=0.1)
    p.add_argument("--clip-grad", dest="clip_grad", type=float, default=5.0)
    p.add_argument("--sync-bn", dest="sync_bn", action="store_true")
    p.add_argument("--amp", action="store_true")
    p.add_argument("--workers", type=int, default=6)
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--log-interval", dest="log_interval", type=int, default=50)
    p.add_argument("--resume", default="")
    p.add_argument("--out", default="runs/kws")
    return p.parse_args()


def build_model(args):
    model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes)
    model.conv1 = nn.Conv2d(1, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model


def main():
    args = parse_args()
    local_rank = init_distributed_mode()
    device = torch.device("cuda", local_rank)
    torch.manual_seed(args.seed + get_rank())

    train_loader, val_loader = build_loaders(args)

    model = build_model(args)
    if args.sync_bn:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model.to(device), device_ids=[local_rank])

    lr = args.lr * args.batch_size * get_world_size() / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=args.momentum, weight_decay=args.wd, nesterov=True)
    total_steps = args.epochs * len(train_loader)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=args.warmup_steps)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps - args.warmup_steps)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[args.warmup_steps])

    start_epoch, best_acc = 0, 0.0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.module.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch, best_acc = ckpt["epoch"] + 1, ckpt["best_acc"]

    if is_main_process():
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)

    for epoch in range(start_epoch, args.epochs):
        train_loss = train_one_epoch(model, train_loader, optimizer, scheduler, epoch, args, device)
        val_acc = evaluate(model, val_loader, device)
        print(f"[rank {get_rank()}] epoch {epoch}: train loss {train_loss:.4f}, val acc {val_acc:.2f}")
        if is_main_process():
            state = {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": scheduler.state_dict(), "epoch": epoch, "best_acc": max(best_acc, val_acc)}
            torch.save(state, os.path.join(args.out, "last.pt"))
            if val_acc > best_acc:
                torch.save(state, os.path.join(args.out, "best.pt"))
        best_acc = max(best_acc, val_acc)


if __name__ == "__main__":
    main()
