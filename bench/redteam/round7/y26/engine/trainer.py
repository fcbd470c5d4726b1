import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, dataset, callbacks=()):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.model = DDP(model.cuda(), device_ids=[self.local_rank])
        self.opt = torch.optim.AdamW(self.model.parameters())
        self.callbacks = list(callbacks)
        self.setup_data(dataset)

    def setup_data(self, ds):
        sampler = DistributedSampler(ds, shuffle=True)
        self.train_loader = DataLoader(ds, batch_size=32, sampler=sampler)

    def train_epoch(self):
        for x, y in self.train_loader:
            loss = torch.nn.functional.cross_entropy(self.model(x.cuda()), y.cuda())
            self.opt.zero_grad(); loss.backward(); self.opt.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            for cb in self.callbacks:
                cb.on_epoch_start(self, epoch)
            self.train_epoch()
