import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from vision import TrainCfg


def main():
    cfg = TrainCfg()
    dist.init_process_group("nccl")
    device = torch.device(cfg.device)
    torch.cuda.set_device(device)
    model = DDP(torch.nn.Linear(512, 10).to(device), device_ids=[device.index])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    ds = TensorDataset(torch.randn(10000, 512), torch.randint(0, 10, (10000,)))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler)
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
    if int(os.environ["RANK"]) == 0:
        torch.save(model.module.state_dict(), "vision.pt")


if __name__ == "__main__":
    main()
