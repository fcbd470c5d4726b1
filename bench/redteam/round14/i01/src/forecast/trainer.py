import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from forecast import distributed
from forecast.checkpoint import CheckpointMixin


class Trainer(CheckpointMixin):
    def __init__(self, cfg, model, train_set, val_set):
        self.cfg = cfg
        self.device = torch.device(cfg.device)
        self.model = DDP(model.to(self.device))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.train_sampler = DistributedSampler(train_set, shuffle=True)
        self.train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=self.train_sampler,
                                       num_workers=cfg.num_workers, pin_memory=True, drop_last=True)
        self.val_loader = DataLoader(val_set, batch_size=cfg.batch_size,
                                     sampler=DistributedSampler(val_set, shuffle=False),
                                     num_workers=cfg.num_workers, pin_memory=True)

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_sampler.set_epoch(epoch)
            self.model.train()
            for step, (x, y) in enumerate(self.train_loader):
                x = x.to(self.device, non_blocking=True)
                y = y.to(self.device, non_blocking=True)
                loss = F.mse_loss(self.model(x), y)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                if step % self.cfg.log_every == 0 and distributed.is_main_process():
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            val_loss = self.evaluate()
            if distributed.is_main_process():
                print(f"epoch {epoch} val_mse {val_loss:.4f}")
                self.save(epoch, val_loss)
            dist.barrier()

    @torch.no_grad()
    def evaluate(self) -> float:
        self.model.eval()
        totals = torch.zeros(2, device=self.device)
        for x, y in self.val_loader:
            x = x.to(self.device, non_blocking=True)
            y = y.to(self.device, non_blocking=True)
            totals[0] += F.mse_loss(self.model(x), y, reduction="sum")
            totals[1] += y.numel()
        dist.all_reduce(totals)
        return (totals[0] / totals[1]).item()
