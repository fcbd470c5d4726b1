import argparse
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from dist_env import setup


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args()
    local_rank = setup()
    model = DDP(torch.nn.Linear(32, 32).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for _ in range(100):
        loss = model(torch.randn(8, 32, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
