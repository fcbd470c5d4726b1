import functools

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.devices import setup_device

pick = functools.partial(setup_device, index=0)


def main():
    dist.init_process_group("nccl")
    device = pick()
    model = DDP(torch.nn.Linear(32, 32).to(device), device_ids=[0])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(100):
        loss = model(torch.randn(8, 32, device=device)).sum()
        opt.zero_grad(); loss.backward(); opt.step()


if __name__ == "__main__":
    main()
