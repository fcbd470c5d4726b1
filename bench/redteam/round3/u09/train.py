import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(64, 10).cuda()
    ddp = DDP(torch.compile(net), device_ids=[local_rank])
    opt = torch.optim.AdamW(ddp.parameters())
    for step in range(100):
        x = torch.randn(16, 64, device="cuda")
        loss = ddp(x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    if dist.get_rank() == 0:
        torch.save(ddp.module.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
