import timm
import torch
import torch.nn as nn


class MaskedAutoencoder(nn.Module):
    """ViT encoder on the visible 25% of patches, light decoder reconstructing all of them."""

    def __init__(self, encoder="vit_small_patch16_224", dec_dim=256, dec_depth=4, mask_ratio=0.75):
        super().__init__()
        self.encoder = timm.create_model(encoder, pretrained=False, num_classes=0, global_pool="")
        dim, self.patch = self.encoder.embed_dim, 16
        self.mask_ratio = mask_ratio
        self.enc_to_dec = nn.Linear(dim, dec_dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, dec_dim))
        self.dec_pos = nn.Parameter(torch.zeros(1, 196, dec_dim))
        layer = nn.TransformerEncoderLayer(dec_dim, 8, 4 * dec_dim, batch_first=True, norm_first=True)
        self.decoder = nn.TransformerEncoder(layer, dec_depth)
        self.to_pixels = nn.Linear(dec_dim, self.patch * self.patch * 3)

    def patchify(self, images):
        p = self.patch
        b, c, h, w = images.shape
        x = images.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p * c)

    def forward(self, images):
        tokens = self.encoder.patch_embed(images) + self.encoder.pos_embed[:, 1:]
        b, n, _ = tokens.shape
        keep = int(n * (1 - self.mask_ratio))
        order = torch.rand(b, n, device=images.device).argsort(dim=1)
        visible = order[:, :keep]
        x = torch.gather(tokens, 1, visible[..., None].expand(-1, -1, tokens.size(-1)))
        x = self.encoder.norm(self.encoder.blocks(x))
        dec = self.mask_token.expand(b, n, -1).clone()
        dec.scatter_(1, visible[..., None].expand(-1, -1, dec.size(-1)), self.enc_to_dec(x))
        pred = self.to_pixels(self.decoder(dec + self.dec_pos))
        target = self.patchify(images)
        masked = torch.ones(b, n, device=images.device).scatter_(1, visible, 0.0)
        return (((pred - target) ** 2).mean(-1) * masked).sum() / masked.sum()
