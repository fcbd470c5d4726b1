import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def setup():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    world_size = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    local_rank = int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    return local_rank


def main():
    local_rank = setup()
    ds = TensorDataset(torch.randn(20000, 128), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(ds)
    model = DDP(torch.nn.Linear(128, 10).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in DataLoader(ds, batch_size=64, sampler=sampler):
            torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
