import torch
import torch.distributed as dist


class Runner:
    def __init__(self, model, optimizer, train_loader, max_epochs, hooks=(), grad_clip=1.0):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.max_epochs = max_epochs
        self.grad_clip = grad_clip
        self.hooks = sorted(hooks, key=lambda h: h.priority)
        self.rank = dist.get_rank()
        self.epoch = 0
        self.iter = 0
        self.last_loss = float("nan")

    def call_hook(self, name):
        for hook in self.hooks:
            getattr(hook, name)(self)

    def train(self):
        self.call_hook("before_run")
        for self.epoch in range(self.max_epochs):
            self.train_loader.sampler.set_epoch(self.epoch)
            self.model.train()
            for batch in self.train_loader:
                input_ids = batch["input_ids"].cuda(non_blocking=True)
                out = self.model(input_ids=input_ids, labels=input_ids)
                out.loss.backward()
                self.model.clip_grad_norm_(self.grad_clip)
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.last_loss = out.loss.item()
                self.iter += 1
                self.call_hook("after_train_iter")
            self.call_hook("after_train_epoch")
            torch.cuda.empty_cache()
