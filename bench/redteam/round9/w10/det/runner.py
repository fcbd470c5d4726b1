import torch
import torch.distributed as dist
import torch.nn.functional as F


class Runner:
    def __init__(self, model, optimizer, train_loader, device, max_epochs, hooks=()):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.device = device
        self.max_epochs = max_epochs
        self.hooks = list(hooks)
        self.rank = dist.get_rank()
        self.epoch = 0

    def _call(self, stage):
        for hook in self.hooks:
            if hasattr(hook, stage):
                getattr(hook, stage)(self)

    def run(self):
        for self.epoch in range(self.max_epochs):
            self.train_loader.sampler.set_epoch(self.epoch)
            self.model.train()
            for images, targets in self.train_loader:
                out = self.model(images.to(self.device, non_blocking=True))
                loss = F.cross_entropy(out, targets.to(self.device, non_blocking=True))
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
            self._call("after_epoch")
        torch.cuda.synchronize(self.device)
