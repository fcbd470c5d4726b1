import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

from seg.data import TileDataset


class SegTrainer:
    def __init__(self, model, train_index, batch_size=16, epochs=60, lr=1e-3):
        self.raw_model = model
        self.epochs = epochs
        self.lr = lr
        self.train_loader = DataLoader(TileDataset(train_index), batch_size=batch_size, shuffle=True,
                                       num_workers=6, pin_memory=True, drop_last=True)

    def setup(self):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.device = torch.device("cuda", self.local_rank)
        self.model = DDP(self.raw_model.to(self.device), device_ids=[self.local_rank])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, self.epochs)

    def on_epoch_end(self, epoch, loss):
        self.scheduler.step()
        if dist.get_rank() == 0:
            print(f"[{epoch}] dice-ce {loss:.4f} lr {self.scheduler.get_last_lr()[0]:.2e}")

    def training_step(self, image, mask):
        logits = self.model(image.to(self.device, non_blocking=True))
        return F.cross_entropy(logits, mask.to(self.device, non_blocking=True))

    def fit(self):
        self.setup()
        for epoch in range(self.epochs):
            self.model.train()
            for image, mask in self.train_loader:
                loss = self.training_step(image, mask)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
            self.on_epoch_end(epoch, loss.item())
        dist.destroy_process_group()
