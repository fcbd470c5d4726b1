import lightning as L
import torch
from build import make_trainer


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-3)


def main():
    ds = torch.utils.data.TensorDataset(torch.randn(512, 32), torch.randn(512, 1))
    make_trainer().fit(Model(), torch.utils.data.DataLoader(ds, batch_size=8))


if __name__ == "__main__":
    main()
