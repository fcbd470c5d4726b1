import click
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@click.command()
@click.option("--device", default="cuda:0", help="device")
@click.option("--epochs", default=3, type=int)
def main(device, epochs):
    dist.init_process_group("nccl")
    model = torch.nn.Linear(32, 32).to(device)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for _ in range(epochs):
        loss = ddp(torch.randn(8, 32, device=device)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
