import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world_size):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = DDP(torch.nn.Linear(64, 64).cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(8, 64, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()
