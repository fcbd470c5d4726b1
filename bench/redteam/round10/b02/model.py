"""GPT-style layers as deepspeed pipeline LayerSpecs."""
import torch
import torch.nn.functional as F
from deepspeed.pipe import LayerSpec


class Embed(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, hidden)

    def forward(self, ids):
        return self.tok(ids)


class Block(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(hidden, nhead=16, dim_feedforward=4 * hidden, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class Head(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(hidden)
        self.proj = torch.nn.Linear(hidden, vocab, bias=False)

    def forward(self, x):
        return self.proj(self.norm(x))


def lm_loss(logits, labels):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))


def gpt_layer_specs(vocab: int, hidden: int, n_layers: int):
    return [LayerSpec(Embed, vocab, hidden)] + [LayerSpec(Block, hidden) for _ in range(n_layers)] + [LayerSpec(Head, vocab, hidden)]
