import os

import torch
import torch.distributed as dist

from summ import checkpoint, dist_utils


class EvalMixin:
    @torch.no_grad()
    def evaluate(self) -> float:
        self.engine.eval()
        stats = torch.zeros(2, device=self.engine.device)
        for batch in self.val_loader:
            batch = {k: v.to(self.engine.device) for k, v in batch.items()}
            stats[0] += self.engine(**batch).loss.float()
            stats[1] += 1
        dist.all_reduce(stats)
        self.engine.train()
        return (stats[0] / stats[1]).item()


class CheckpointMixin:
    def on_step_end(self) -> None:
        if self.global_step % self.cfg["save_every"] == 0:
            checkpoint.save(self.engine, self.cfg["output_dir"], self.global_step)
            val_loss = self.evaluate()
            if dist_utils.is_main_process():
                print(f"step {self.global_step}: val_loss={val_loss:.4f}")

    def on_train_end(self) -> None:
        checkpoint.save(self.engine, self.cfg["output_dir"], self.global_step)
        checkpoint.export_weights(self.engine, os.path.join(self.cfg["output_dir"], "final", "model.pt"))
