import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from callbacks import EvalCallback


class Trainer:
    def __init__(self, model, opt, loader, callbacks):
        self.model, self.opt, self.loader, self.callbacks = model, opt, loader, callbacks
        self.metrics = {}

    def fit(self, epochs):
        for epoch in range(epochs):
            self.loader.sampler.set_epoch(epoch)
            for x, y in self.loader:
                torch.nn.functional.cross_entropy(self.model(x.cuda()), y.cuda()).backward()
                self.opt.step()
                self.opt.zero_grad()
            for cb in self.callbacks:
                cb.on_epoch_end(self)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(100, 10).cuda(), device_ids=[local_rank])
    train = TensorDataset(torch.randn(8000, 100), torch.randint(0, 10, (8000,)))
    val = TensorDataset(torch.randn(2000, 100), torch.randint(0, 10, (2000,)))
    loader = DataLoader(train, batch_size=64, sampler=DistributedSampler(train))
    val_loader = DataLoader(val, batch_size=256)
    Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), loader, [EvalCallback(val_loader)]).fit(5)


if __name__ == "__main__":
    main()
