import lightning as L
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from transformers import AutoModelForCausalLM


class LitLM(L.LightningModule):
    def __init__(self, name):
        super().__init__()
        self.name = name

    def configure_model(self):
        self.model = AutoModelForCausalLM.from_pretrained(self.name)

    def training_step(self, batch, batch_idx):
        loss = self.model(**batch).loss
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-5)
