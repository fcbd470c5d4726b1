import copy

import torch

from base import BaseTrainer


class EMATrainer(BaseTrainer):
    def __init__(self, net, decay=0.999):
        super().__init__(net)
        self.ema = copy.deepcopy(net).cuda().eval()
        self.decay = decay

    def train_step(self, x):
        loss = self.model(x).pow(2).mean()
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        with torch.no_grad():
            for e, p in zip(self.ema.parameters(), self.model.module.parameters()):
                e.mul_(self.decay).add_(p, alpha=1 - self.decay)

    @torch.no_grad()
    def evaluate(self, val_batches):
        self.model.eval()
        total = sum(self.model.module(x).pow(2).mean().item() for x in val_batches)
        self.model.train()
        return total / len(val_batches)


if __name__ == "__main__":
    t = EMATrainer(torch.nn.Linear(32, 32))
    for step in range(100):
        t.train_step(torch.randn(8, 32, device="cuda"))
    print(t.evaluate([torch.randn(8, 32, device="cuda") for _ in range(4)]))
