import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_ch=3, num_classes=19, widths=(64, 128, 256, 512), grad_ckpt=False):
        super().__init__()
        self.grad_ckpt = grad_ckpt
        self.downs = nn.ModuleList()
        c = in_ch
        for w in widths:
            self.downs.append(conv_block(c, w))
            c = w
        self.bottleneck = conv_block(widths[-1], widths[-1] * 2)
        self.ups = nn.ModuleList()
        self.up_convs = nn.ModuleList()
        c = widths[-1] * 2
        for w in reversed(widths):
            self.ups.append(nn.ConvTranspose2d(c, w, 2, stride=2))
            self.up_convs.append(conv_block(2 * w, w))
            c = w
        self.head = nn.Conv2d(widths[0], num_classes, 1)

    def _run(self, block, x):
        if self.grad_ckpt and self.training:
            return checkpoint(block, x, use_reentrant=False)
        return block(x)

    def forward(self, x):
        skips = []
        for down in self.downs:
            x = self._run(down, x)
            skips.append(x)
            x = nn.functional.max_pool2d(x, 2)
        x = self._run(self.bottleneck, x)
        for up, conv, skip in zip(self.ups, self.up_convs, reversed(skips)):
            x = self._run(conv, torch.cat([up(x), skip], dim=1))
        return self.head(x)
