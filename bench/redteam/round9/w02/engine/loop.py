import torch
import torch.distributed as dist


class Trainer:
    def __init__(self, model, optimizer, loader, sampler, hooks, max_epochs):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.sampler = sampler
        self.hooks = list(hooks)
        self.max_epochs = max_epochs
        self.epoch = 0
        self.step = 0
        self.rank = dist.get_rank()

    def call_hook(self, name):
        for hook in self.hooks:
            fn = getattr(hook, name, None)
            if fn is not None:
                fn(self)

    def fit(self):
        self.call_hook("before_run")
        while self.epoch < self.max_epochs:
            self.sampler.set_epoch(self.epoch)
            self.call_hook("before_epoch")
            for images, labels in self.loader:
                images = images.cuda(non_blocking=True)
                labels = labels.cuda(non_blocking=True)
                loss = torch.nn.functional.cross_entropy(self.model(images), labels)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.step += 1
                self.call_hook("after_iter")
            self.epoch += 1
            self.call_hook("after_epoch")
        self.call_hook("after_run")
