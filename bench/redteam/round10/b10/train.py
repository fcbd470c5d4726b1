"""ResNet-50 on ImageNet with DDP (PyTorch 1.13, torch.distributed.launch)."""
import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from imagenet_data import build_dataset


def parse_args():
    parser = argparse.ArgumentParser(description="ResNet-50 DDP")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--data", default="/datasets/imagenet")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=8)
    return parser.parse_args()


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    for images, target in loader:
        out = model(images.to(device, non_blocking=True))
        correct += torch.stack([(out.argmax(1) == target.to(device)).sum(), torch.tensor(target.numel(), device=device)])
    dist.all_reduce(correct)
    return (correct[0] / correct[1]).item()


def main():
    args = parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    device = torch.device("cuda", args.local_rank)

    model = DDP(torchvision.models.resnet50().to(device), device_ids=[args.local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    train_set, val_set = build_dataset(args.data, True), build_dataset(args.data, False)
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, args.batch_size, sampler=sampler, num_workers=args.workers, pin_memory=True)
    val_loader = DataLoader(val_set, 256, sampler=DistributedSampler(val_set, shuffle=False), num_workers=args.workers)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for images, target in train_loader:
            loss = F.cross_entropy(model(images.to(device, non_blocking=True)), target.to(device, non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = validate(model, val_loader, device)
        if dist.get_rank() == 0:
            print(f"epoch {epoch} top1 {acc:.4f}")
            torch.save(model.module.state_dict(), f"checkpoints/resnet50_e{epoch}.pth")


if __name__ == "__main__":
    main()
