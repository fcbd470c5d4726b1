import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--out", default="runs/0")
    args = ap.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(256, 10).cuda(), device_ids=[local_rank])
    data = TensorDataset(torch.randn(50000, 256), torch.randint(0, 10, (50000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=256, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(20):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    if dist.get_rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(args.out, "model.pt"))


if __name__ == "__main__":
    main()
