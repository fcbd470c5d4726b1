import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class DecoderLM(nn.Module):
    def __init__(self, vocab, hidden_size, num_layers, num_heads, ffn_size, max_len=2048):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden_size)
        self.pos = nn.Embedding(max_len, hidden_size)
        self.blocks = nn.ModuleList(Block(hidden_size, num_heads, ffn_size) for _ in range(num_layers))
        self.ln_f = nn.LayerNorm(hidden_size)
        self.head = nn.Linear(hidden_size, vocab, bias=False)

    def forward(self, ids, targets):
        t = ids.size(1)
        mask = torch.triu(torch.full((t, t), float("-inf"), device=ids.device), diagonal=1)
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        for blk in self.blocks:
            x = blk(x, mask)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
