import lightning as L
import torch

from strategies import make_strategy

CFG = {"zero": 2, "devices": 4}


class LitLM(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(1024, 1024)

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).pow(2).mean()

    def configure_optimizers(self):
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-4)


if __name__ == "__main__":
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(512, 1024)), batch_size=8)
    trainer = L.Trainer(accelerator="gpu", devices=CFG["devices"], strategy=make_strategy(CFG), precision="bf16-mixed")
    trainer.fit(LitLM(), loader)
