import os
from dataclasses import dataclass

import simple_parsing
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from data_module import ImageDataModule


@dataclass
class Args:
    batch_size: int = 64
    epochs: int = 10


def main():
    args = simple_parsing.parse(Args)
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 10)).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    dm = ImageDataModule(args.batch_size)
    loader = dm.train_dataloader()
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
