"""ViT pretraining on ImageNet-1k with plain DDP, one rank per GPU (started by torchrun)."""
import argparse
import math
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from vision.data import imagenet
from vision.model import build_model


def cosine_lr(step, total, warmup, base_lr):
    if step < warmup:
        return base_lr * step / max(1, warmup)
    return 0.5 * base_lr * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/vit_b16_in1k.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()

    train_set = imagenet(cfg["data"]["root"], cfg["model"]["image_size"], "train")
    sampler = DistributedSampler(train_set, shuffle=True, drop_last=True)
    loader = DataLoader(
        train_set,
        batch_size=cfg["data"]["batch_size"],
        sampler=sampler,
        num_workers=cfg["data"]["num_workers"],
        pin_memory=cfg["data"]["pin_memory"],
        persistent_workers=True,
        drop_last=True,
    )

    model = build_model(cfg["model"]["name"], cfg["model"]["drop_path"]).cuda()
    model = DDP(model, device_ids=[local_rank])
    opt_cfg = cfg["optim"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt_cfg["lr"], weight_decay=opt_cfg["weight_decay"])
    total_steps = opt_cfg["epochs"] * len(loader)
    warmup_steps = opt_cfg["warmup_epochs"] * len(loader)

    step = 0
    for epoch in range(opt_cfg["epochs"]):
        sampler.set_epoch(epoch)
        model.train()
        for images, labels in loader:
            for group in optimizer.param_groups:
                group["lr"] = cosine_lr(step, total_steps, warmup_steps, opt_cfg["lr"])
            images = images.cuda(non_blocking=True)
            labels = labels.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
        if rank == 0:
            os.makedirs(cfg["output_dir"], exist_ok=True)
            torch.save({"model": model.module.state_dict(), "epoch": epoch},
                       os.path.join(cfg["output_dir"], "last.pt"))
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
