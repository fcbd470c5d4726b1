import hydra
import lightning as L
import torch
from omegaconf import DictConfig


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(32, 1)

    def training_step(self, batch, _):
        return self.l(batch[0]).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg: DictConfig):
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(512, 32)),
                                         batch_size=cfg.data.batch_size, num_workers=cfg.data.workers)
    trainer = L.Trainer(accelerator="gpu", devices=cfg.trainer.devices, num_nodes=cfg.trainer.num_nodes,
                        max_epochs=cfg.trainer.max_epochs)
    trainer.fit(Net(), loader)


if __name__ == "__main__":
    main()
