import torch
from transformers import get_cosine_schedule_with_warmup

from .mixins import EvalMixin, ExportMixin


class CodeTrainer(EvalMixin, ExportMixin):
    def __init__(self, accelerator, model, tokenizer, train_loader, val_loader, cfg):
        self.accelerator = accelerator
        self.tokenizer = tokenizer
        self.cfg = cfg
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.0)
        total = cfg["epochs"] * len(train_loader)
        scheduler = get_cosine_schedule_with_warmup(optimizer, cfg["warmup_steps"], total)
        (self.model, self.optimizer, self.train_loader, self.val_loader,
         self.scheduler) = accelerator.prepare(model, optimizer, train_loader, val_loader, scheduler)

    def fit(self) -> None:
        self.model.train()
        for epoch in range(self.cfg["epochs"]):
            for step, batch in enumerate(self.train_loader):
                loss = self.model(**batch).loss
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
                if step % 50 == 0:
                    self.accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            ppl = self.evaluate()
            self.accelerator.print(f"epoch {epoch}: val_ppl={ppl:.2f}")
        self.export("final")
