import torch.nn as nn


def block(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.GroupNorm(8, c_out), nn.SiLU())


class SegNet(nn.Module):
    """Small encoder-decoder for 4-band satellite tiles."""

    def __init__(self, in_channels=4, num_classes=6, width=64):
        super().__init__()
        self.enc = nn.Sequential(block(in_channels, width), nn.MaxPool2d(2), block(width, 2 * width), nn.MaxPool2d(2))
        self.mid = block(2 * width, 2 * width)
        self.dec = nn.Sequential(nn.Upsample(scale_factor=4, mode="bilinear"), block(2 * width, width))
        self.head = nn.Conv2d(width, num_classes, 1)

    def forward(self, x):
        return self.head(self.dec(self.mid(self.enc(x))))
