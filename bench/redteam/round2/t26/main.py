import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from launcher import launch


def train(local_rank, cfg):
    model = DDP(torch.nn.Linear(64, 64).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(100):
        model(torch.randn(8, 64, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    launch(train, parser.parse_args().config)
