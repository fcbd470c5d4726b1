import os

import torch
import torch.distributed as dist
import typer
from torch.nn.parallel import DistributedDataParallel as DDP

app = typer.Typer()


@app.command()
def main(lr: float = 1e-3, epochs: int = 3, gpu: int = 0):
    dist.init_process_group("nccl")
    torch.cuda.set_device(gpu)
    model = DDP(torch.nn.Linear(256, 256).cuda(), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(epochs):
        x = torch.randn(32, 256, device="cuda")
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    app()
