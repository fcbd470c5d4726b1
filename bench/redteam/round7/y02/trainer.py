import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, lr=1e-3):
        dist.init_process_group("nccl")
        self.global_rank = dist.get_rank()
        self.raw_model = model
        self.lr = lr

    def on_fit_start(self):
        torch.cuda.set_device(self.global_rank)
        self.model = DDP(self.raw_model.cuda())
        self.opt = torch.optim.SGD(self.model.parameters(), lr=self.lr)

    def training_step(self, x):
        loss = self.model(x).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def fit(self, steps):
        self.on_fit_start()
        for _ in range(steps):
            self.training_step(torch.randn(16, 64, device="cuda"))
