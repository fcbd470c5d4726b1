import os

import torch
import torch.distributed as dist
import torch.nn.functional as F


class LoopMixin:
    def on_epoch_start(self, epoch):
        self.epoch = epoch
        self.seen = 0
        self.loss_sum = torch.zeros((), device=self.device)

    def train_step(self, users, items, ratings):
        pred = self.model(users, items)
        loss = F.mse_loss(pred, ratings)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.loss_sum += loss.detach() * len(ratings)
        self.seen += len(ratings)

    def fit(self):
        self.setup_distributed()
        self.setup_data()
        self.setup_model(self.num_users, self.num_items)
        for epoch in range(self.cfg.train.epochs):
            self.on_epoch_start(epoch)
            self.model.train()
            for users, items, ratings in self.train_loader:
                users = users.to(self.device, non_blocking=True)
                items = items.to(self.device, non_blocking=True)
                ratings = ratings.to(self.device, non_blocking=True)
                self.train_step(users, items, ratings)
            rmse = self.validate()
            if self.is_main:
                print(f"epoch {epoch}: train mse {self.loss_sum.item() / self.seen:.4f} val rmse {rmse:.4f}")
                self.save(epoch)
        self.teardown()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        totals = torch.zeros(2, device=self.device)
        for users, items, ratings in self.val_loader:
            users, items, ratings = users.to(self.device), items.to(self.device), ratings.to(self.device)
            pred = self.model(users, items)
            totals[0] += ((pred - ratings) ** 2).sum()
            totals[1] += ratings.numel()
        dist.all_reduce(totals)
        return (totals[0] / totals[1]).sqrt().item()

    def save(self, epoch):
        out = self.cfg.train.out_dir
        os.makedirs(out, exist_ok=True)
        torch.save(self.model.module.state_dict(), os.path.join(out, f"neumf_{epoch:03d}.pt"))
