import lightning as L
from deepspeed.ops.adam import DeepSpeedCPUAdam
from transformers import AutoModelForCausalLM


class CausalLM(L.LightningModule):
    def __init__(self, model_name: str = "Qwen/Qwen2.5-1.5B", lr: float = 2e-5, weight_decay: float = 0.05):
        super().__init__()
        self.save_hyperparameters()
        self.model = AutoModelForCausalLM.from_pretrained(model_name)
        self.model.gradient_checkpointing_enable()
        self.model.train()

    def training_step(self, batch, batch_idx):
        loss = self.model(**batch).loss
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        # The optimizer state lives on the host (offload_optimizer in the DeepSpeed config).
        return DeepSpeedCPUAdam(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
