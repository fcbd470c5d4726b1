import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms as T

from utils.env import DEVICE, pin_visible_gpu


def build_loaders(root, batch_size, rank, world_size):
    norm = T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
    train_set = torchvision.datasets.CIFAR100(root, train=True, transform=T.Compose(
        [T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    test_set = torchvision.datasets.CIFAR100(root, train=False, transform=T.Compose([T.ToTensor(), norm]))
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler, num_workers=4, pin_memory=True)
    test_loader = DataLoader(test_set, batch_size=256,
                             sampler=DistributedSampler(test_set, num_replicas=world_size, rank=rank, shuffle=False))
    return train_loader, sampler, test_loader


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct[0] += (model(x).argmax(1) == y).sum()
        correct[1] += y.numel()
    dist.all_reduce(correct)
    return (correct[0] / correct[1]).item()


def worker(index, gpus, args):
    pin_visible_gpu(index, gpus)  # before the first CUDA call of this process
    world_size = len(gpus)
    device = torch.device(DEVICE)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", rank=index, world_size=world_size)

    net = torchvision.models.wide_resnet50_2(num_classes=100)
    net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net).cuda(0)
    model = DDP(net, device_ids=[0])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1 * world_size, momentum=0.9, weight_decay=5e-4,
                                nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    start = 0
    if args.resume:
        state = torch.load(args.resume, map_location=DEVICE)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start = state["epoch"] + 1

    train_loader, sampler, test_loader = build_loaders(args.data, args.batch_size, index, world_size)
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x.to(device, non_blocking=True)), y.to(device, non_blocking=True))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = evaluate(model, test_loader, device)
        if index == 0:
            print(f"epoch {epoch}: test acc {acc:.4f}")
            os.makedirs(args.out, exist_ok=True)
            torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch}, os.path.join(args.out, "last.pt"))
        dist.barrier()
    dist.destroy_process_group()
