import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from data import make_loader


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(8, 1).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = make_loader(16)
    for epoch in range(10):
        train_loader.sampler.set_epoch(epoch)
        for (x,) in train_loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
