import math

import torch

from codeft import export


class EvalMixin:
    @torch.no_grad()
    def evaluate(self) -> float:
        self.model.eval()
        losses = []
        for batch in self.val_loader:
            loss = self.model(**batch).loss
            losses.append(self.accelerator.gather_for_metrics(loss.repeat(batch["input_ids"].size(0))))
        self.model.train()
        return math.exp(torch.cat(losses).mean().item())


class ExportMixin:
    def export(self, name: str) -> None:
        export.save_hf(self.accelerator, self.model, self.tokenizer, f"{self.cfg['output_dir']}/{name}")
