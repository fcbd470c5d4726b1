import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(torch.nn.Linear(32, 32).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(8, 32, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
