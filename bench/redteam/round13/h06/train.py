"""ResNet-50 on ImageNet with DDP; started by jobs/train_ddp.sbatch."""
import argparse
import os

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, models, transforms

from dist_utils import average, init_distributed, is_main


def loaders(root, batch_size, workers):
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), norm])
    val_tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm])
    train_set = datasets.ImageFolder(os.path.join(root, "train"), train_tf)
    val_set = datasets.ImageFolder(os.path.join(root, "val"), val_tf)
    train_sampler = DistributedSampler(train_set, shuffle=True)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, num_workers=workers,
                              pin_memory=True, drop_last=True, persistent_workers=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler, num_workers=workers,
                            pin_memory=True)
    return train_loader, val_loader


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, seen = 0, 0
    for images, target in loader:
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            correct += (model(images).argmax(1) == target).sum().item()
        seen += target.numel()
    return average(correct / max(seen, 1), device)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    rank, world_size, local_rank = init_distributed()
    device = torch.device("cuda", local_rank)
    model = DDP(models.resnet50().to(device), device_ids=[local_rank])
    lr = args.lr * args.batch_size * world_size / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    train_loader, val_loader = loaders(args.data, args.batch_size, args.workers)

    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for images, target in train_loader:
            images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images), target, label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = evaluate(model, val_loader, device)
        if is_main():
            print(f"epoch {epoch} top1 {acc:.4f}", flush=True)
            torch.save(model.module.state_dict(), f"checkpoints/resnet50_e{epoch}.pt")


if __name__ == "__main__":
    main()
