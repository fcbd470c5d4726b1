import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision import models

from data.registry import LOADERS


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", choices=sorted(LOADERS), default="imagenet")
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(models.resnet50().cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = LOADERS[args.dataset](batch_size=64)
    for epoch in range(90):
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
