import torch
import torch.distributed as dist
from transformers import Trainer


class MetricTrainer(Trainer):
    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        metrics = super().evaluate(eval_dataset, ignore_keys, metric_key_prefix)
        loss = torch.tensor(metrics["eval_loss"], device=self.args.device)
        if dist.is_initialized():
            dist.all_reduce(loss)
            loss /= dist.get_world_size()
        if self.is_world_process_zero():
            print({"eval_loss_mean": loss.item()})
            with open("eval.log", "a") as f:
                f.write(f"{loss.item()}\n")
        return metrics
