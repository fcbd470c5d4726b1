"""Local SGD on CIFAR-10: every worker takes H local steps, then the workers average their models.

No DDP on purpose: gradients are not all-reduced at every step (Lin et al., "Don't Use Large
Mini-Batches, Use Local SGD", ICLR 2020).
"""
import argparse

import torch
import torch.nn.functional as F

from localsgd.data import cifar_loaders
from localsgd.resnet import ResNet20
from utils.dist import average_parameters, broadcast_parameters, init_distributed


@torch.no_grad()
def test(model, loader, device):
    model.eval()
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    model.train()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/cifar10")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--local-steps", type=int, default=8, help="H: local steps between averaging rounds")
    args = parser.parse_args()

    local_rank, rank, world = init_distributed()
    device = torch.device("cuda", local_rank)
    train_loader, test_loader = cifar_loaders(args.data, args.batch_size)

    model = ResNet20().to(device)
    broadcast_parameters(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * world, momentum=0.9, weight_decay=1e-4,
                                nesterov=True)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 225], gamma=0.1)

    step = 0
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if step % args.local_steps == 0:
                average_parameters(model)
        scheduler.step()
        average_parameters(model)
        if rank == 0 and epoch % 10 == 0:
            print(f"epoch {epoch}: loss {loss.item():.3f} test acc {test(model, test_loader, device):.4f}", flush=True)
    if rank == 0:
        torch.save(model.state_dict(), f"resnet20_localsgd_h{args.local_steps}.pt")


if __name__ == "__main__":
    main()
