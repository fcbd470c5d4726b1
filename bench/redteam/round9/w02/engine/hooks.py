import os

import torch


class LrWarmupHook:
    def __init__(self, warmup_iters, base_lr):
        self.warmup_iters = warmup_iters
        self.base_lr = base_lr

    def after_iter(self, trainer):
        if trainer.step <= self.warmup_iters:
            scale = trainer.step / self.warmup_iters
            for group in trainer.optimizer.param_groups:
                group["lr"] = self.base_lr * scale


class CheckpointHook:
    def __init__(self, work_dir, resume=True, interval=1):
        self.work_dir = work_dir
        self.resume = resume
        self.interval = interval

    @property
    def latest(self):
        return os.path.join(self.work_dir, "latest.pth")

    def before_run(self, trainer):
        if not (self.resume and os.path.exists(self.latest)):
            return
        ckpt = torch.load(self.latest)
        trainer.model.module.load_state_dict(ckpt["model"])
        trainer.optimizer.load_state_dict(ckpt["optimizer"])
        trainer.epoch = ckpt["epoch"]
        trainer.step = ckpt["step"]

    def after_epoch(self, trainer):
        if trainer.rank != 0 or trainer.epoch % self.interval:
            return
        os.makedirs(self.work_dir, exist_ok=True)
        torch.save({
            "model": trainer.model.module.state_dict(),
            "optimizer": trainer.optimizer.state_dict(),
            "epoch": trainer.epoch,
            "step": trainer.step,
        }, self.latest)
