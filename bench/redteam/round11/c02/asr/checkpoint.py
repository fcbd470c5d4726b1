import os

import torch


class CheckpointMixin:
    def maybe_resume(self):
        if not self.args.resume:
            return
        state = torch.load(self.args.resume, map_location="cpu")
        self.model.module.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.start_epoch = state["epoch"] + 1

    def on_epoch_end(self, epoch, metrics):
        if self.rank == 0:
            os.makedirs(self.args.exp_dir, exist_ok=True)
            torch.save({"model": self.model.module.state_dict(), "optimizer": self.optimizer.state_dict(),
                        "scheduler": self.scheduler.state_dict(), "epoch": epoch, **metrics},
                       os.path.join(self.args.exp_dir, f"epoch-{epoch}.pt"))
            print(f"epoch {epoch}: {metrics}", flush=True)
        super().on_epoch_end(epoch, metrics)
