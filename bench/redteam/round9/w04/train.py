import click
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import comms


def make_model(hidden):
    return nn.Sequential(
        nn.Conv1d(40, hidden, 5, padding=2), nn.ReLU(),
        nn.Conv1d(hidden, hidden, 5, padding=2), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(hidden, 35),
    )


@click.command()
@click.option("--epochs", default=30, show_default=True)
@click.option("--batch-size", default=256, show_default=True)
@click.option("--lr", default=1e-3, show_default=True)
@click.option("--hidden", default=256, show_default=True)
def main(epochs, batch_size, lr, hidden):
    rank, world_size, local_rank = comms.setup()
    model = make_model(hidden).cuda()
    model = DDP(torch.compile(model))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    feats = TensorDataset(torch.randn(60000, 40, 101), torch.randint(0, 35, (60000,)))
    sampler = DistributedSampler(feats, num_replicas=world_size, rank=rank)
    loader = DataLoader(feats, batch_size=batch_size, sampler=sampler, num_workers=4, pin_memory=True)

    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if rank == 0:
            click.echo(f"epoch {epoch} loss={loss.item():.4f} local_rank={local_rank}")
    comms.teardown()


if __name__ == "__main__":
    main()
