"""A compact masked autoencoder: ViT encoder on visible patches, light decoder on all tokens."""
import torch
import torch.nn as nn


class MaskedAutoencoder(nn.Module):
    def __init__(self, img_size=224, patch=16, dim=768, depth=12, heads=12, dec_dim=512, dec_depth=8, mask_ratio=0.75):
        super().__init__()
        self.patch, self.mask_ratio = patch, mask_ratio
        n = (img_size // patch) ** 2
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.zeros(1, n, dim))
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True, norm_first=True), depth)
        self.enc_to_dec = nn.Linear(dim, dec_dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, dec_dim))
        self.dec_pos = nn.Parameter(torch.zeros(1, n, dec_dim))
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dec_dim, 16, 4 * dec_dim, batch_first=True, norm_first=True), dec_depth)
        self.head = nn.Linear(dec_dim, patch * patch * 3)
        nn.init.trunc_normal_(self.pos, std=0.02)
        nn.init.trunc_normal_(self.dec_pos, std=0.02)
        nn.init.normal_(self.mask_token, std=0.02)

    def patchify(self, imgs):
        p = self.patch
        x = imgs.unfold(2, p, p).unfold(3, p, p)  # B, C, h, w, p, p
        return x.permute(0, 2, 3, 4, 5, 1).reshape(imgs.shape[0], -1, p * p * 3)

    def forward(self, imgs):
        x = self.patch_embed(imgs).flatten(2).transpose(1, 2) + self.pos
        b, n, d = x.shape
        keep = int(n * (1 - self.mask_ratio))
        ids_shuffle = torch.rand(b, n, device=x.device).argsort(dim=1)
        ids_restore = ids_shuffle.argsort(dim=1)
        visible = torch.gather(x, 1, ids_shuffle[:, :keep, None].expand(-1, -1, d))
        latent = self.enc_to_dec(self.encoder(visible))
        tokens = torch.cat([latent, self.mask_token.expand(b, n - keep, -1)], dim=1)
        tokens = torch.gather(tokens, 1, ids_restore[:, :, None].expand(-1, -1, tokens.shape[-1])) + self.dec_pos
        pred = self.head(self.decoder(tokens))
        mask = torch.ones(b, n, device=x.device)
        mask[:, :keep] = 0
        mask = torch.gather(mask, 1, ids_restore)
        target = self.patchify(imgs)
        target = (target - target.mean(-1, keepdim=True)) / (target.var(-1, keepdim=True) + 1e-6).sqrt()
        loss = ((pred - target) ** 2).mean(-1)
        return (loss * mask).sum() / mask.sum()
