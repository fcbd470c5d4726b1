import json
import lightning as L
import torch
from lightning.pytorch.strategies import DeepSpeedStrategy

CFG = "configs/zero2.json"


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(32, 1)

    def training_step(self, batch, idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    with open(CFG) as f:
        ds_config = json.load(f)
    trainer = L.Trainer(devices=4, strategy=DeepSpeedStrategy(config=ds_config), precision="bf16-mixed")
    ds = torch.utils.data.TensorDataset(torch.randn(512, 32), torch.randn(512, 1))
    trainer.fit(Model(), torch.utils.data.DataLoader(ds, batch_size=8))


if __name__ == "__main__":
    main()
