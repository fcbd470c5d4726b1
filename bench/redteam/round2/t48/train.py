import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from slurm_dist import init_from_slurm


def main():
    local_rank = init_from_slurm()
    ds = TensorDataset(torch.randn(4096, 64), torch.randint(0, 4, (4096,)))
    sampler = DistributedSampler(ds)
    model = DDP(torch.nn.Linear(64, 4).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, y in DataLoader(ds, batch_size=64, sampler=sampler):
            torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
