import copy

import torch
import torch.distributed as dist


class Trainer:
    def __init__(self, model, optimizer, loader, sampler, device, ema_decay=0.999):
        self.model = model
        self.raw = getattr(model, "module", model)
        self.ema = copy.deepcopy(self.raw).eval().requires_grad_(False)
        self.optimizer = optimizer
        self.loader = loader
        self.sampler = sampler
        self.device = device
        self.ema_decay = ema_decay
        self.rank = dist.get_rank() if dist.is_initialized() else 0

    def train_step(self, batch):
        ids = batch["input_ids"].to(self.device, non_blocking=True)
        loss = self.model(input_ids=ids, labels=ids).loss
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self._update_ema()
        return loss.detach()

    @torch.no_grad()
    def _update_ema(self):
        for ema_p, p in zip(self.ema.parameters(), self.raw.parameters()):
            ema_p.lerp_(p, 1.0 - self.ema_decay)

    @torch.inference_mode()
    def sample(self, prompt_ids, max_new_tokens=48):
        self.raw.eval()
        out = self.raw.generate(prompt_ids.to(self.device), max_new_tokens=max_new_tokens,
                                do_sample=True, top_p=0.9, pad_token_id=50256)
        self.raw.train()
        return out

    def fit(self, epochs, sample_every, prompt_ids):
        step = 0
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.loader:
                loss = self.train_step(batch)
                step += 1
                if self.rank == 0 and step % sample_every == 0:
                    print(f"step {step}: loss {loss.item():.4f} sample {self.sample(prompt_ids)[0, -16:].tolist()}")

    def save(self, path):
        if self.rank == 0:
            torch.save({"model": self.raw.state_dict(), "ema": self.ema.state_dict()}, path)
