"""Launched with: torchrun --nproc_per_node=2 train.py

Wrong: the training loader has no DistributedSampler, so both ranks train on the whole
dataset (DSL301); the validation sampler is never told the epoch (DSL302).
"""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    train_set = TensorDataset(torch.randn(50000, 32), torch.randint(0, 4, (50000,)))
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2)
    aug_set = TensorDataset(torch.randn(8000, 32), torch.randint(0, 4, (8000,)))
    aug_sampler = DistributedSampler(aug_set)
    aug_loader = DataLoader(aug_set, batch_size=64, sampler=aug_sampler)
    model = DDP(torch.nn.Linear(32, 4).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        for loader in (train_loader,):
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        for x, y in aug_loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
