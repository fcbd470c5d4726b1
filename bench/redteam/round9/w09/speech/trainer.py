import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, loader, settings, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.settings = settings
        self.callbacks = list(callbacks)
        self.global_step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def _train_epoch(self):
        self.model.train()
        for feats, labels in self.loader:
            feats, labels = feats.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            loss = F.cross_entropy(self.model(feats), labels)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.global_step += 1
            self._emit("on_step_end", self.global_step, loss.item())

    def fit(self):
        for epoch in range(self.settings.epochs):
            self._emit("on_epoch_start", epoch)
            self._train_epoch()
        torch.cuda.synchronize()
