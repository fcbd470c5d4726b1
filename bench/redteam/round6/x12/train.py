import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_loader(ds, batch_size):
    sampler = DistributedSampler(ds, shuffle=True) if dist.is_initialized() else None
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, shuffle=sampler is None)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ds = TensorDataset(torch.randn(8192, 32), torch.randn(8192, 1))
    loader = make_loader(ds, 128)
    model = DDP(torch.nn.Linear(32, 1).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(20):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
