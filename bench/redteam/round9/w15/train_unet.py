import argparse

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

DEVICE = torch.device("cuda:0")


class TinyUNet(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.SiLU(), nn.Conv2d(ch, ch, 3, stride=2, padding=1))
        self.mid = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.SiLU())
        self.up = nn.Sequential(nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x):
        return self.up(self.mid(self.down(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    torch.cuda.set_device(DEVICE)
    dist.init_process_group("nccl")
    model = DDP(TinyUNet().to(DEVICE), device_ids=[DEVICE.index])
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)

    images = TensorDataset(torch.rand(30000, 3, 64, 64))
    sampler = DistributedSampler(images)
    loader = DataLoader(images, batch_size=args.batch_size, sampler=sampler, num_workers=4, drop_last=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x = x.to(DEVICE, non_blocking=True)
            noise = torch.randn_like(x)
            t = torch.rand(x.size(0), 1, 1, 1, device=DEVICE)
            loss = F.mse_loss(model(x * (1 - t) + noise * t), noise)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "unet.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
