import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU(), torch.nn.Linear(64, 10)).cuda()
    model = torch.compile(DDP(net, device_ids=[local_rank]))
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(100):
        x = torch.randn(16, 64, device="cuda")
        y = torch.randint(0, 10, (16,), device="cuda")
        loss = torch.nn.functional.cross_entropy(model.module(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
