import argparse
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from cifar.data import build_datasets
from cifar.resnet import resnet18


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/cifar100")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--out", default="checkpoints")
    return parser.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(2, device=device)
    for images, labels in loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        stats[0] += (model(images).argmax(1) == labels).sum()
        stats[1] += labels.numel()
    dist.all_reduce(stats)
    return (stats[0] / stats[1]).item()


def worker(rank, world_size, port, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = torch.device("cuda", rank)

    train_set, test_set = build_datasets(args.data)
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, num_workers=4,
                              pin_memory=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256, sampler=DistributedSampler(test_set, shuffle=False),
                             num_workers=2)

    model = DDP(resnet18(num_classes=100).to(device), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * world_size, momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = evaluate(model, test_loader, device)
        if rank == 0:
            print(f"epoch {epoch:3d}  loss {loss.item():.3f}  top1 {acc:.4f}", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save(model.module.state_dict(), os.path.join(args.out, "resnet18_last.pt"))
    dist.destroy_process_group()


def main():
    args = parse_args()
    world_size = torch.cuda.device_count()
    if world_size == 0:
        sys.exit("no GPU visible")
    for i in range(world_size):
        props = torch.cuda.get_device_properties(i)
        print(f"GPU {i}: {props.name}, {props.total_memory / 2**30:.0f} GiB")

    port = free_port()
    ctx = mp.get_context("spawn")
    procs = []
    for rank in range(world_size):
        p = ctx.Process(target=worker, args=(rank, world_size, port, args))
        p.start()
        procs.append(p)
    for p in procs:
        p.join()
    failed = [r for r, p in enumerate(procs) if p.exitcode != 0]
    if failed:
        sys.exit(f"workers {failed} failed")


if __name__ == "__main__":
    main()
