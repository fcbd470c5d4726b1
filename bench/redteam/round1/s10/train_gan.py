import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from distributed import init_distributed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/gan.yaml")
    args = ap.parse_args()
    rank, local_rank, world = init_distributed()
    g = DDP(nn.Sequential(nn.Linear(128, 1024), nn.ReLU(), nn.Linear(1024, 784)).cuda(), device_ids=[local_rank])
    d = DDP(nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 1)).cuda(), device_ids=[local_rank])
    og, od = torch.optim.Adam(g.parameters(), 2e-4), torch.optim.Adam(d.parameters(), 2e-4)
    data = TensorDataset(torch.load("data/mnist.pt", map_location="cpu"))
    sampler = DistributedSampler(data, num_replicas=world, rank=rank)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    bce = nn.BCEWithLogitsLoss()
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (real,) in loader:
            real = real.cuda()
            z = torch.randn(real.size(0), 128, device=real.device)
            fake = g(z)
            ld = bce(d(real), torch.ones(real.size(0), 1, device=real.device)) + bce(d(fake.detach()), torch.zeros(real.size(0), 1, device=real.device))
            od.zero_grad()
            ld.backward()
            od.step()
            lg = bce(d(fake), torch.ones(real.size(0), 1, device=real.device))
            og.zero_grad()
            lg.backward()
            og.step()


if __name__ == "__main__":
    main()
