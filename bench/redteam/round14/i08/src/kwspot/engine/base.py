import os

import torch

from kwspot import comm


class BaseTrainer:
    def __init__(self, model, optimizer, train_loader, eval_loader, cfg):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.eval_loader = eval_loader
        self.cfg = cfg

    def on_train_epoch_start(self, epoch: int) -> None:
        pass

    def fit(self) -> None:
        for epoch in range(self.cfg["epochs"]):
            self.on_train_epoch_start(epoch)
            loss = self.train_epoch()
            acc = self.evaluate()
            if comm.is_main_process():
                print(f"epoch {epoch}: loss={loss:.4f} test_acc={acc:.4f}")
                os.makedirs(self.cfg["output_dir"], exist_ok=True)
                torch.save(self.model.module.state_dict(), os.path.join(self.cfg["output_dir"], "last.pt"))
