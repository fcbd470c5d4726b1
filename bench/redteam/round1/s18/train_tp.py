import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import parallel


class ColumnParallelLinear(nn.Module):
    def __init__(self, din, dout, tp):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dout // tp, din) * 0.02)

    def forward(self, x):
        out = x @ self.weight.t()
        gathered = [torch.empty_like(out) for _ in range(dist.get_world_size(parallel.tp_group()))]
        dist.all_gather(gathered, out.detach(), group=parallel.tp_group())
        gathered[parallel.tp_rank()] = out
        return torch.cat(gathered, dim=-1)


def main():
    tp = 2
    parallel.initialize(tp)
    model = nn.Sequential(ColumnParallelLinear(1024, 4096, tp), nn.GELU(), nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.AdamW(model.parameters(), 1e-4)
    data = TensorDataset(torch.randn(20000, 1024))
    sampler = DistributedSampler(data, num_replicas=parallel.dp_size(), rank=parallel.dp_rank())
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            for p in model.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad, group=parallel.dp_group())
            opt.step()
        if parallel.tp_rank() == 0:
            dist.barrier(group=parallel.dp_group())
            if parallel.dp_rank() == 0:
                torch.save(model.state_dict(), f"ckpt/epoch{epoch}.pt")


if __name__ == "__main__":
    main()
