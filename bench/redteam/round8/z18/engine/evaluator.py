from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F


@dataclass
class EvalConfig:
    fast_eval: bool = True
    amp_dtype: torch.dtype = torch.bfloat16


class Evaluator:
    def __init__(self, model, val_loader, cfg: EvalConfig):
        self.model = model
        self.val_loader = val_loader
        self.cfg = cfg

    def evaluate(self):
        # inference_mode is faster; no_grad keeps the outputs usable by autograd-aware metrics.
        grad_off = torch.inference_mode if self.cfg.fast_eval else torch.no_grad
        self.model.eval()
        total = torch.zeros(2, device="cuda")
        with grad_off(), torch.autocast("cuda", dtype=self.cfg.amp_dtype):
            for x, y in self.val_loader:
                logits = self.model(x.cuda(non_blocking=True))
                total[0] += F.cross_entropy(logits.float(), y.cuda(), reduction="sum")
                total[1] += y.numel()
        dist.all_reduce(total)
        self.model.train()
        return (total[0] / total[1]).item()
