import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer_factory import make_trainer


class Seg(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Conv2d(3, 21, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


if __name__ == "__main__":
    data = TensorDataset(torch.randn(256, 3, 64, 64), torch.randint(0, 21, (256, 64, 64)))
    make_trainer(max_epochs=50).fit(Seg(), DataLoader(data, batch_size=8))
