import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(1024, 1024).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(1000):
        loss = model(torch.randn(16, 1024, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
