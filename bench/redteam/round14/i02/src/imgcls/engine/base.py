import torch.nn as nn

from imgcls import comm


class BaseTrainer:
    def __init__(self, model, optimizer, scheduler, train_loader, val_loader, cfg):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.cfg = cfg
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        self.epoch = 0
        self.best_acc = 0.0

    def fit(self):
        for epoch in range(self.epoch, self.cfg["epochs"]):
            self.epoch = epoch
            train_loss = self.train_one_epoch()
            acc = self.validate()
            self.scheduler.step()
            if comm.is_main_process():
                print(f"epoch {epoch}: train_loss={train_loss:.4f} top1={acc:.3f}")
                if acc > self.best_acc:
                    self.best_acc = acc
                    self.save("best.pt")
                self.save("last.pt")
            comm.synchronize()
