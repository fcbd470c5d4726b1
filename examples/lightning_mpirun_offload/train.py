import lightning as L
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from torch.utils.data import DataLoader, TensorDataset


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(12)])

    def training_step(self, batch, batch_idx):
        (x,) = batch
        return self.net(x).float().pow(2).mean()

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-5)


if __name__ == "__main__":
    data = DataLoader(TensorDataset(torch.randn(256, 8192)), batch_size=8)
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy="deepspeed_stage_2_offload", precision="bf16-mixed")
    trainer.fit(Model(), data)
