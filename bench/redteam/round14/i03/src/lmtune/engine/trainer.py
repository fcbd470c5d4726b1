import os
import time

import torch

from lmtune import dist_utils

from .logging import LoggingMixin
from .step import StepMixin


class LMTrainer(StepMixin, LoggingMixin):
    def __init__(self, model, optimizer, scheduler, train_loader, cfg):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.cfg = cfg
        self.device = torch.device("cuda", torch.cuda.current_device())
        self._t0 = time.time()

    def train(self):
        self.model.train()
        for epoch in range(self.cfg["epochs"]):
            self.train_loader.sampler.set_epoch(epoch)
            for step, batch in enumerate(self.train_loader):
                loss = self.training_step(batch)
                if step % self.cfg["log_every"] == 0:
                    self.log_step(epoch, step, loss)
        if dist_utils.is_main():
            out = os.path.join(self.cfg["output_dir"], "final")
            self.model.module.save_pretrained(out)
