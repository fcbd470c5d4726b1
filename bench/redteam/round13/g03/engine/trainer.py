import torch
import torch.distributed as dist
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, datamodule, device, epochs, callbacks=(), grad_clip=5.0):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.epochs = epochs
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.start_epoch = 0
        self.epoch = 0
        self.train_loader = datamodule.train_dataloader()
        self.val_loader = datamodule.val_dataloader()

    def _fire(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def _ctc_loss(self, feats, feat_lens, tokens, token_lens):
        log_probs, out_lens = self.model(feats.to(self.device), feat_lens.to(self.device))
        return F.ctc_loss(log_probs.transpose(0, 1), tokens.to(self.device), out_lens, token_lens.to(self.device),
                          zero_infinity=True)

    def _train_epoch(self):
        self.model.train()
        for step, (feats, feat_lens, tokens, token_lens) in enumerate(self.train_loader):
            loss = self._ctc_loss(feats, feat_lens, tokens, token_lens)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self._fire("on_step_end", step, loss.item())

    @torch.no_grad()
    def _validate(self):
        self.model.eval()
        totals = torch.zeros(2, device=self.device)
        for feats, feat_lens, tokens, token_lens in self.val_loader:
            totals[0] += self._ctc_loss(feats, feat_lens, tokens, token_lens) * feats.size(0)
            totals[1] += feats.size(0)
        dist.all_reduce(totals)
        return {"val_ctc": (totals[0] / totals[1]).item()}

    def fit(self):
        self._fire("on_fit_start")
        for epoch in range(self.start_epoch, self.epochs):
            self._fire("on_epoch_start", epoch)
            self._train_epoch()
            metrics = self._validate()
            self._fire("on_epoch_end", epoch, metrics)
