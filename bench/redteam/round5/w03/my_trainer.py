import torch
import torch.distributed as dist
from transformers import Trainer


class MetricTrainer(Trainer):
    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix="eval"):
        metrics = super().evaluate(eval_dataset, ignore_keys, metric_key_prefix)
        if self.is_world_process_zero():
            loss = torch.tensor(metrics["eval_loss"], device=self.args.device)
            dist.all_reduce(loss)
            metrics["eval_loss_mean"] = loss.item() / dist.get_world_size()
            self.log(metrics)
        return metrics
