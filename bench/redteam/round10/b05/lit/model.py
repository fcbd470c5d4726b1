"""Decoder-only LM as a LightningModule; the optimizer is DeepSpeed's CPU Adam (the states are offloaded)."""
import lightning as L
import torch
import torch.nn.functional as F
from deepspeed.ops.adam import DeepSpeedCPUAdam


class LitLM(L.LightningModule):
    def __init__(self, vocab: int = 32000, hidden_dim: int = 2048, n_layers: int = 24, lr: float = 3e-4):
        super().__init__()
        self.save_hyperparameters()
        self.embed = torch.nn.Embedding(vocab, hidden_dim)
        layer = torch.nn.TransformerEncoderLayer(hidden_dim, nhead=16, dim_feedforward=4 * hidden_dim, batch_first=True)
        self.blocks = torch.nn.TransformerEncoder(layer, num_layers=n_layers)
        self.head = torch.nn.Linear(hidden_dim, vocab, bias=False)

    def forward(self, ids):
        return self.head(self.blocks(self.embed(ids)))

    def training_step(self, batch, batch_idx):
        ids, labels = batch
        logits = self(ids)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=self.hparams.lr, weight_decay=0.1)
