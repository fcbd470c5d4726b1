import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from callbacks import ValidationHook


class Loop:
    def __init__(self):
        self.rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.rank)
        dist.init_process_group("nccl")
        self.model = DDP(torch.nn.Linear(8, 1).cuda(), device_ids=[self.rank])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        ds = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
        self.sampler = DistributedSampler(ds)
        self.loader = DataLoader(ds, batch_size=16, sampler=self.sampler)
        self.hooks = [ValidationHook(DataLoader(ds, batch_size=64))]

    def run(self, epochs):
        for e in range(epochs):
            self.sampler.set_epoch(e)
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x.cuda()), y.cuda())
                self.opt.zero_grad(); loss.backward(); self.opt.step()
            for h in self.hooks:
                h.after_epoch(self)


Loop().run(3)
