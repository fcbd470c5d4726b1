import torch
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

from dist_helpers import set_rendezvous, setup


def worker(rank, world_size):
    setup(rank, world_size)
    torch.cuda.set_device(rank)
    model = DDP(torch.nn.Linear(32, 32).cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(100):
        model(torch.randn(4, 32, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    set_rendezvous()
    n = torch.cuda.device_count()
    mp.spawn(worker, args=(n,), nprocs=n)
