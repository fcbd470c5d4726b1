import torch
import torch.nn as nn


class VisionTransformer(nn.Module):
    def __init__(self, image_size=224, patch_size=16, dim=768, depth=12, heads=12, num_classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
        num_patches = (image_size // patch_size) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, num_patches + 1, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.encoder(x))[:, 0])
