import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, models, transforms


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(models.vit_b_16().cuda(), device_ids=[local_rank])
    ds = datasets.ImageFolder("/data/imagenet/train", transforms.ToTensor())
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(90):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
