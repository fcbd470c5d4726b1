import torch
import torch.nn as nn


class CharTransformer(nn.Module):
    def __init__(self, vocab=256, dim=512, depth=8, heads=8, context=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, context, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, x):
        t = x.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf"), device=x.device), diagonal=1)
        h = self.blocks(self.embed(x) + self.pos[:, :t], mask=causal)
        return self.head(self.norm(h))
