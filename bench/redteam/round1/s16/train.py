import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from model import Enhancer


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(Enhancer().cuda(), device_ids=[local_rank])
    clean, noisy = torch.load("data/pairs.pt", map_location="cpu")
    data = TensorDataset(noisy, clean)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), 3e-4)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.l1_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), "runs/best.pt")


if __name__ == "__main__":
    main()
