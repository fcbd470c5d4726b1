import torch


class Trainer:
    def __init__(self, model, optimizer, loader, device):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.device = device

    def train_epoch(self, epoch):
        self.loader.sampler.set_epoch(epoch)
        self.model.train()
        for src, tgt in self.loader:
            src, tgt = src.to(self.device), tgt.to(self.device)
            # call the wrapped network directly so we can pass the teacher-forcing flag
            logits = self.model.module(src, tgt[:, :-1], teacher_forcing=True)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
