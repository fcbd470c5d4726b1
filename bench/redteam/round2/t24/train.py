import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, models, transforms

from distill import Distiller


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    student = DDP(models.resnet18().cuda(), device_ids=[local_rank])
    distiller = Distiller(student, torch.optim.SGD(student.parameters(), lr=0.1))
    ds = datasets.ImageFolder("/data/imagenet/train", transforms.ToTensor())
    sampler = DistributedSampler(ds)
    for epoch in range(30):
        sampler.set_epoch(epoch)
        for x, y in DataLoader(ds, batch_size=64, sampler=sampler, num_workers=8):
            distiller.training_step(x.cuda(), y.cuda())


if __name__ == "__main__":
    main()
