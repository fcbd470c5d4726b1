import click
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from prep import download


@click.group()
def cli():
    pass


@cli.command()
@click.option("--local-rank", envvar="LOCAL_RANK", type=int, default=0)
@click.option("--root", default="/tmp/data")
def train(local_rank, root):
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    if local_rank == 0:
        download(root)
        dist.barrier()
    model = DDP(torch.nn.Linear(4, 4).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(2, 4, device="cuda")).sum()
        opt.zero_grad(); loss.backward(); opt.step()


if __name__ == "__main__":
    cli()
