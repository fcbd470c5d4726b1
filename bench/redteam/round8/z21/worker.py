import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from config import EPOCHS


def run(index, world_size):
    torch.cuda.set_device(index)
    dist.init_process_group("nccl", rank=index, world_size=world_size)
    model = DDP(torch.nn.Linear(32, 32).cuda(), device_ids=[index])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    ds = TensorDataset(torch.randn(4096, 32))
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=index)
    loader = DataLoader(ds, batch_size=64, sampler=sampler)
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()
