import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from distenv import DistEnv
from vit import VisionTransformer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    env = DistEnv.from_env()
    device = torch.device("cuda", env.rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", rank=env.rank, world_size=env.world_size)

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    dataset = datasets.ImageFolder(cfg["data"]["train_dir"], transform=tf)
    sampler = DistributedSampler(dataset, num_replicas=env.world_size, rank=env.rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], sampler=sampler,
                        num_workers=cfg["num_workers"], pin_memory=True, drop_last=True)

    model = DDP(VisionTransformer(**cfg["model"]).to(device), device_ids=[device])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.05)

    os.makedirs("ckpt", exist_ok=True)
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if env.is_main:
            torch.save({"model": model.module.state_dict(), "epoch": epoch}, f"ckpt/vit_{epoch:03d}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
