import os

import lightning as L
import torch
from lightning.pytorch.strategies import DeepSpeedStrategy

HERE = os.path.dirname(os.path.abspath(__file__))


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(512, 512)

    def training_step(self, batch, _):
        return self.layer(batch[0]).sum()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


def main():
    strategy = DeepSpeedStrategy(config=os.path.join(HERE, "ds_config.json"))
    trainer = L.Trainer(devices=4, accelerator="gpu", strategy=strategy, max_epochs=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 512)), batch_size=4)
    trainer.fit(Model(), loader)


if __name__ == "__main__":
    main()
