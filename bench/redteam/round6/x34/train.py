import argparse

import lightning as L
import torch
from lightning.pytorch.strategies import DDPStrategy

parser = argparse.ArgumentParser()
parser.add_argument("--nodes", type=int, default=2)
parser.add_argument("--gpus", type=int, default=4)
args = parser.parse_args()


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(64, 1)

    def training_step(self, batch, _):
        return self.l(batch[0]).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


trainer = L.Trainer(accelerator="gpu", devices=args.gpus, num_nodes=args.nodes,
                    strategy=DDPStrategy(find_unused_parameters=False))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(1024, 64)), batch_size=32)
trainer.fit(Net(), loader)
