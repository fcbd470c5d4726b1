import lightning.pytorch as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TinyGPT(pl.LightningModule):
    def __init__(self, vocab: int = 50304, dim: int = 1024, layers: int = 12):
        super().__init__()
        self.save_hyperparameters()
        self.emb = nn.Embedding(vocab, dim)
        self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 16, batch_first=True), layers)
        self.head = nn.Linear(dim, vocab)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.head(self.body(self.emb(x))).flatten(0, 1), y.flatten())
        self.log("loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        return DeepSpeedCPUAdam(self.parameters(), lr=3e-4)


class Tokens(pl.LightningDataModule):
    def __init__(self, batch_size: int = 8):
        super().__init__()
        self.batch_size = batch_size

    def train_dataloader(self):
        t = torch.load("data/tokens.pt", map_location="cpu")
        return DataLoader(TensorDataset(t[:, :-1], t[:, 1:]), batch_size=self.batch_size, shuffle=True, num_workers=2)
