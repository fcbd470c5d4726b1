import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from .ckpt import load_pretrained


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(16, 16).cuda()
    model = load_pretrained(model, "checkpoints/pretrain.pt")
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(4, 16, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
