import math

import torch
import torch.nn as nn


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, c, tdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.t = nn.Linear(tdim, c)
        self.n2, self.c2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x, temb):
        h = self.c1(torch.nn.functional.silu(self.n1(x))) + self.t(temb)[:, :, None, None]
        return x + self.c2(torch.nn.functional.silu(self.n2(h)))


class TinyUNet(nn.Module):
    def __init__(self, ch=128, tdim=256):
        super().__init__()
        self.tdim = tdim
        self.temb = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.down = nn.Conv2d(ch, ch, 4, stride=2, padding=1)
        self.mid = nn.ModuleList([ResBlock(ch, tdim) for _ in range(4)])
        self.up = nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1)
        self.out = nn.Conv2d(2 * ch, 3, 3, padding=1)

    def forward(self, x, t):
        temb = self.temb(timestep_embedding(t, self.tdim))
        h0 = self.inp(x)
        h = self.down(h0)
        for block in self.mid:
            h = block(h, temb)
        return self.out(torch.cat([self.up(h), h0], dim=1))
