import torch
import torch.nn as nn


class CTCEncoder(nn.Module):
    """Conv2d subsampling (4x) + Transformer encoder + CTC head."""

    def __init__(self, n_mels, d_model, layers, heads, vocab_size):
        super().__init__()
        self.subsample = nn.Sequential(
            nn.Conv2d(1, d_model, 3, stride=2), nn.ReLU(), nn.Conv2d(d_model, d_model, 3, stride=2), nn.ReLU())
        self.proj = nn.Linear(d_model * (((n_mels - 1) // 2 - 1) // 2), d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d_model, vocab_size + 1)

    def forward(self, feats, feat_lens):
        x = self.subsample(feats.unsqueeze(1))
        b, c, t, f = x.shape
        x = self.proj(x.transpose(1, 2).reshape(b, t, c * f))
        out_lens = ((feat_lens - 1) // 2 - 1) // 2
        pad = torch.arange(t, device=x.device)[None, :] >= out_lens.to(x.device)[:, None]
        x = self.encoder(x, src_key_padding_mask=pad)
        return self.head(x).log_softmax(-1), out_lens
