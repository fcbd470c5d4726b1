import torch
import torch.nn as nn


class PatchTST(nn.Module):
    """Channel-independent patch transformer for multivariate forecasting."""

    def __init__(self, context=512, horizon=96, patch=16, dim=128, depth=3, heads=8, dropout=0.2):
        super().__init__()
        self.patch = patch
        self.num_patches = context // patch
        self.embed = nn.Linear(patch, dim)
        self.pos = nn.Parameter(torch.randn(1, self.num_patches, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.head = nn.Linear(self.num_patches * dim, horizon)

    def forward(self, x):  # x: (batch, context, channels)
        b, t, c = x.shape
        mean, std = x.mean(1, keepdim=True), x.std(1, keepdim=True) + 1e-5
        x = ((x - mean) / std).permute(0, 2, 1).reshape(b * c, self.num_patches, self.patch)
        h = self.encoder(self.embed(x) + self.pos)
        y = self.head(h.flatten(1)).reshape(b, c, -1).permute(0, 2, 1)
        return y * std + mean
