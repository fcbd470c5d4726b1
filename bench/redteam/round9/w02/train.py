import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import transforms

from engine import CheckpointHook, LrWarmupHook, Trainer


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
    dataset = torchvision.datasets.ImageFolder("/data/imagenet/train", transform=tf)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=8, pin_memory=True)

    model = torchvision.models.resnet50().cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=1e-4)

    hooks = [LrWarmupHook(warmup_iters=2500, base_lr=0.2), CheckpointHook("work_dirs/r50")]
    Trainer(model, optimizer, loader, sampler, hooks, max_epochs=90).fit()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
