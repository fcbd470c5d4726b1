import torch
import torch.distributed as dist
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, loader, sampler, callbacks, epochs):
        self.model, self.optimizer = model, optimizer
        self.loader, self.sampler = loader, sampler
        self.callbacks, self.epochs = callbacks, epochs

    @property
    def is_main(self):
        return dist.get_rank() == 0

    def fit(self):
        step = 0
        for epoch in range(self.epochs):
            self.sampler.set_epoch(epoch)
            for users, items, clicks in self.loader:
                users, items, clicks = users.cuda(), items.cuda(), clicks.cuda()
                logits = self.model(users, items)
                loss = F.binary_cross_entropy_with_logits(logits, clicks)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                step += 1
                logs = {"loss": loss, "ctr": torch.sigmoid(logits).mean()}
                for cb in self.callbacks:
                    cb.on_step(self, step, logs)
