import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, feats, res_scale=0.1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(feats, feats, 3, padding=1), nn.ReLU(inplace=True),
                                  nn.Conv2d(feats, feats, 3, padding=1))
        self.res_scale = res_scale

    def forward(self, x):
        return x + self.body(x) * self.res_scale


class EDSR(nn.Module):
    def __init__(self, scale=4, n_blocks=16, feats=64):
        super().__init__()
        self.head = nn.Conv2d(3, feats, 3, padding=1)
        self.body = nn.Sequential(*[ResBlock(feats) for _ in range(n_blocks)], nn.Conv2d(feats, feats, 3, padding=1))
        ups = []
        for _ in range({2: 1, 4: 2}[scale]):
            ups += [nn.Conv2d(feats, feats * 4, 3, padding=1), nn.PixelShuffle(2)]
        self.tail = nn.Sequential(*ups, nn.Conv2d(feats, 3, 3, padding=1))

    def forward(self, x):
        h = self.head(x)
        return self.tail(h + self.body(h))
