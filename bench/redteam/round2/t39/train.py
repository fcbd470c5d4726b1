import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ds = TensorDataset(torch.randn(100000, 512), torch.randint(0, 100, (100000,)))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=256, sampler=sampler, num_workers=4)
    model = DDP(torch.nn.Linear(512, 100).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
