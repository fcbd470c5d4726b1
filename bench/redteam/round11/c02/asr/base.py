import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from .model import CTCEncoder


class BaseTrainer:
    def __init__(self, args):
        self.args = args
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.rank = dist.get_rank()
        self.device = torch.device("cuda", self.local_rank)
        self.start_epoch = 0
        torch.manual_seed(args.seed)
        self.build_loaders()
        self.build_model()
        self.maybe_resume()

    def build_loaders(self):
        raise NotImplementedError

    def build_model(self):
        a = self.args
        net = CTCEncoder(a.n_mels, a.d_model, a.layers, a.heads, a.vocab_size).to(self.device)
        self.model = DDP(net, device_ids=[self.local_rank])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=a.lr, betas=(0.9, 0.98), weight_decay=1e-3)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min((s + 1) / a.warmup_steps, (a.warmup_steps / (s + 1)) ** 0.5))

    def maybe_resume(self):
        pass

    def on_epoch_begin(self, epoch):
        pass

    def on_epoch_end(self, epoch, metrics):
        pass

    def ctc_loss(self, feats, feat_lens, tokens, token_lens):
        log_probs, out_lens = self.model(feats, feat_lens)
        return F.ctc_loss(log_probs.transpose(0, 1), tokens, out_lens, token_lens, zero_infinity=True)

    def train_epoch(self, epoch):
        self.model.train()
        for step, (feats, feat_lens, tokens, token_lens) in enumerate(self.train_loader):
            feats, tokens = feats.to(self.device, non_blocking=True), tokens.to(self.device, non_blocking=True)
            loss = self.ctc_loss(feats, feat_lens, tokens, token_lens)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
            self.optimizer.step()
            self.scheduler.step()
            if self.rank == 0 and step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f}", flush=True)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        totals = torch.zeros(2, device=self.device)
        for feats, feat_lens, tokens, token_lens in self.dev_loader:
            feats, tokens = feats.to(self.device), tokens.to(self.device)
            totals[0] += self.ctc_loss(feats, feat_lens, tokens, token_lens) * len(feat_lens)
            totals[1] += len(feat_lens)
        dist.all_reduce(totals)
        return {"dev_ctc": (totals[0] / totals[1]).item()}

    def run(self):
        for epoch in range(self.start_epoch, self.args.epochs):
            self.on_epoch_begin(epoch)
            self.train_epoch(epoch)
            metrics = self.evaluate()
            self.on_epoch_end(epoch, metrics)
        dist.destroy_process_group()
