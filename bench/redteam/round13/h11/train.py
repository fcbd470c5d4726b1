"""ViT-L/16 on ImageNet-21k with DDP under torchrun (train.slurm)."""
import argparse
import math
import os

import timm
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from config import TrainConfig
from data import build_train_loader


def cosine_lr(epoch, cfg):
    if epoch < cfg.warmup_epochs:
        return cfg.lr * (epoch + 1) / cfg.warmup_epochs
    progress = (epoch - cfg.warmup_epochs) / max(1, cfg.epochs - cfg.warmup_epochs)
    return 0.5 * cfg.lr * (1 + math.cos(math.pi * progress))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    cfg = TrainConfig(epochs=args.epochs)
    model = timm.create_model(cfg.model, num_classes=cfg.num_classes).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    loader = build_train_loader(args.data, cfg)

    for epoch in range(cfg.epochs):
        loader.sampler.set_epoch(epoch)
        for group in optimizer.param_groups:
            group["lr"] = cosine_lr(epoch, cfg)
        model.train()
        for step, (images, target) in enumerate(loader):
            images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images), target, label_smoothing=cfg.label_smoothing)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if dist.get_rank() == 0 and step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), f"vit_l_e{epoch}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
