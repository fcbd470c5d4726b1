import torch.nn as nn


def stage(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=2, padding=1),
        nn.GroupNorm(16, c_out),
        nn.GELU(),
        nn.Conv2d(c_out, c_out, 3, padding=1),
        nn.GroupNorm(16, c_out),
        nn.GELU(),
    )


class CropNet(nn.Module):
    def __init__(self, num_classes=24, widths=(64, 128, 256, 512)):
        super().__init__()
        layers, c_in = [], 3
        for width in widths:
            layers.append(stage(c_in, width))
            c_in = width
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, num_classes))

    def forward(self, x):
        return self.head(self.features(x))
