import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from dist_env import setup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    rank, world = setup()
    model = DDP(torch.nn.Linear(256, 10).cuda())
    data = TensorDataset(torch.randn(10000, 256), torch.randint(0, 10, (10000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
