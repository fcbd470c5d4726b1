import os

import attrs
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from torchvision.utils import save_image


@attrs.define
class GanConfig:
    z_dim: int = 128
    image_size: int = 64
    batch_size: int = 128
    epochs: int = 50
    lr: float = 2e-4
    out_dir: str = "samples"


class PreviewGrid:
    def __init__(self, n, z_dim):
        self.z = torch.randn(n, z_dim, device="cuda")

    def save(self, generator, path):
        with torch.no_grad():
            images = generator(self.z).view(-1, 3, 64, 64)
        save_image(images * 0.5 + 0.5, path, nrow=8)


def generator(z_dim):
    return nn.Sequential(nn.Linear(z_dim, 1024), nn.ReLU(), nn.Linear(1024, 3 * 64 * 64), nn.Tanh())


def discriminator():
    return nn.Sequential(nn.Linear(3 * 64 * 64, 1024), nn.LeakyReLU(0.2), nn.Linear(1024, 1))


def main(cfg: GanConfig):
    preview = PreviewGrid(64, cfg.z_dim)
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    G = DDP(generator(cfg.z_dim).to(device), device_ids=[local_rank])
    D = DDP(discriminator().to(device), device_ids=[local_rank])
    opt_g = torch.optim.Adam(G.parameters(), lr=cfg.lr, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=cfg.lr, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()

    images = TensorDataset(torch.rand(20000, 3 * 64 * 64) * 2 - 1)
    sampler = DistributedSampler(images)
    loader = DataLoader(images, batch_size=cfg.batch_size, sampler=sampler, drop_last=True)
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        for (real,) in loader:
            real = real.to(device)
            z = torch.randn(real.size(0), cfg.z_dim, device=device)
            fake = G(z)
            d_loss = bce(D(real), torch.ones(real.size(0), 1, device=device)) + \
                bce(D(fake.detach()), torch.zeros(real.size(0), 1, device=device))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(D(fake), torch.ones(real.size(0), 1, device=device))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
        if dist.get_rank() == 0:
            os.makedirs(cfg.out_dir, exist_ok=True)
            preview.save(G.module, f"{cfg.out_dir}/epoch_{epoch:03d}.png")
    dist.destroy_process_group()


if __name__ == "__main__":
    main(GanConfig())
