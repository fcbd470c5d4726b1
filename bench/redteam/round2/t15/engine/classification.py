import torch

from engine.base import BaseTrainer


class ClassificationTrainer(BaseTrainer):
    def train_step(self, batch):
        x, y = (t.cuda(non_blocking=True) for t in batch)
        loss = torch.nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()

    def fit(self):
        for epoch in range(self.epochs):
            self.model.train()
            for batch in self.train_loader:
                self.train_step(batch)
