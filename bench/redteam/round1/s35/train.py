import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from utils.torch_utils import torch_distributed_zero_first

LOCAL_RANK = int(os.getenv("LOCAL_RANK", -1))
RANK = int(os.getenv("RANK", -1))


def main(opt):
    if LOCAL_RANK != -1:
        torch.cuda.set_device(LOCAL_RANK)
        device = torch.device("cuda", LOCAL_RANK)
        dist.init_process_group("nccl" if dist.is_nccl_available() else "gloo")
    else:
        device = torch.device("cuda:0")
    with torch_distributed_zero_first(LOCAL_RANK):
        dataset = torchvision.datasets.CIFAR10(opt.data, train=True, download=True,
                                               transform=torchvision.transforms.ToTensor())
    sampler = DistributedSampler(dataset) if LOCAL_RANK != -1 else None
    loader = DataLoader(dataset, batch_size=opt.batch_size, sampler=sampler, shuffle=sampler is None, num_workers=4)
    model = torchvision.models.resnet18(num_classes=10).to(device)
    if LOCAL_RANK != -1:
        model = DDP(model, device_ids=[LOCAL_RANK], output_device=LOCAL_RANK)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(opt.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if RANK in {-1, 0}:
            torch.save(model.state_dict(), "last.pt")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=100)
    main(p.parse_args())
