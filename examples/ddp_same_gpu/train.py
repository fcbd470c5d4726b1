"""Launched with: torchrun --nproc_per_node=4 train.py

Wrong: every rank selects GPU 0 and DDP pins its replica there too (DSL101).
"""
import torch
import torch.distributed as dist
import torch.nn as nn


def main():
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(0)
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[0])
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    for _ in range(100):
        loss = ddp(torch.randn(32, 512, device="cuda")).logsumexp(-1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
