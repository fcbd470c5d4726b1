import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, required=True)
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(64, 1).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    ds = TensorDataset(torch.randn(8192, 64), torch.randn(8192, 1))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=128, sampler=sampler)
    for epoch in range(20):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    if dist.get_rank() == 0:
        print(f"lr={args.lr} final loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
