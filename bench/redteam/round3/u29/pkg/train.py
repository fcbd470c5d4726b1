import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from .dist_env import setup


def main():
    local_rank = setup()
    model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(2, 8, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
