import torch


class Trainer:
    def __init__(self, model, optimizer, train_loader, max_epochs, device):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.max_epochs = max_epochs
        self.device = device
        self.epoch = 0

    def fit(self):
        while self.epoch < self.max_epochs:
            self._run_epoch()
            self.epoch += 1

    def _run_epoch(self):
        self.model.train()
        for feats, feat_lens, targets, target_lens in self.train_loader:
            log_probs = self.model(feats.to(self.device)).log_softmax(-1).transpose(0, 1)
            loss = torch.nn.functional.ctc_loss(log_probs, targets, feat_lens, target_lens)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
