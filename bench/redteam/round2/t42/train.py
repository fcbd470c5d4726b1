import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from callbacks import EvalCallback


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(100, 10).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train = TensorDataset(torch.randn(8000, 100), torch.randint(0, 10, (8000,)))
    val = TensorDataset(torch.randn(2000, 100), torch.randint(0, 10, (2000,)))
    sampler = DistributedSampler(train)
    loader = DataLoader(train, batch_size=64, sampler=sampler)
    cb = EvalCallback(DataLoader(val, batch_size=256))

    class T:
        metrics = {}
    t = T()
    t.model = model
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in loader:
            torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()
            opt.zero_grad()
        cb.on_epoch_end(t)


if __name__ == "__main__":
    main()
