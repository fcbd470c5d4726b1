import lightning.pytorch as pl
import torch
import torch.nn as nn


class LitLM(pl.LightningModule):
    def __init__(self, vocab=32000, dim=1024, layers=12):
        super().__init__()
        self.save_hyperparameters()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 16, batch_first=True), layers)
        self.head = nn.Linear(dim, vocab)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.head(self.blocks(self.embed(x)))
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4)
