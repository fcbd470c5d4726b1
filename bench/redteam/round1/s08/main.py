import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def get_args():
    parser = argparse.ArgumentParser(description="ImageNet training")
    parser.add_argument("--data", default="/datasets/imagenet/train")
    parser.add_argument("--device", default="cuda:0", help="device to train on")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--lr", type=float, default=0.1)
    return parser.parse_args()


def main(args):
    dist.init_process_group("nccl")
    device = torch.device(args.device)
    model = torchvision.models.resnet50().to(device)
    model = DistributedDataParallel(model)
    tf = torchvision.transforms.Compose([torchvision.transforms.RandomResizedCrop(224), torchvision.transforms.ToTensor()])
    dataset = torchvision.datasets.ImageFolder(args.data, tf)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=8)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main(get_args())
