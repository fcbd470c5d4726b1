import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(16, 1).cuda()
    ddp_model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        x = torch.randn(8, 16, device="cuda")
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    if dist.get_rank() == 0:
        torch.save(ddp_model.module.state_dict(), "m.pt")


if __name__ == "__main__":
    main()
