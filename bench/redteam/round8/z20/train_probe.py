import os
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

CACHE = Path("cache")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    features = torch.load(CACHE / "features.pt")
    labels = torch.randint(0, 20, (features.shape[0],))
    ds = TensorDataset(features, labels)
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=256, sampler=sampler)
    probe = DDP(torch.nn.Linear(256, 20).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(probe.parameters(), lr=0.1)
    for epoch in range(30):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(probe(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
