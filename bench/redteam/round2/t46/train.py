import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from models import Net


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(Net().cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        model(torch.randn(8, 16, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "ckpt/final.pt")


if __name__ == "__main__":
    main()
