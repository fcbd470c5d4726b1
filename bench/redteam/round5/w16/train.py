import os
import torch
import torch.distributed as dist
from jsonargparse import CLI
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main(epochs: int = 10, batch_size: int = 64, num_workers: int = os.cpu_count(), lr: float = 1e-3):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ds = TensorDataset(torch.randn(50000, 3, 32, 32), torch.randint(0, 10, (50000,)))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=num_workers, pin_memory=True)
    model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 10)).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    CLI(main)
