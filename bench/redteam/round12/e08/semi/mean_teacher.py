import math

import torch
import torch.nn.functional as F

from .base import BaseTrainer
from .ema import ModelEmaV2


def sigmoid_rampup(it, length):
    if length == 0:
        return 1.0
    phase = 1.0 - min(it, length) / length
    return math.exp(-5.0 * phase * phase)


class MeanTeacherTrainer(BaseTrainer):
    """Mean Teacher (Tarvainen & Valpola, 2017): the teacher is an EMA of the student."""

    def __init__(self, model, raw_model, optimizer, labeled_loader, unlabeled_loader, device, max_iters,
                 ema_decay=0.999, consistency=10.0, rampup_iters=20000):
        super().__init__(max_iters)
        self.model = model
        self.raw_model = raw_model
        self.optimizer = optimizer
        self.labeled_loader = labeled_loader
        self.unlabeled_loader = unlabeled_loader
        self.device = device
        self.ema = ModelEmaV2(raw_model, decay=ema_decay)
        self.consistency = consistency
        self.rampup_iters = rampup_iters

    def batches(self):
        epoch = 0
        while True:
            self.labeled_loader.sampler.set_epoch(epoch)
            self.unlabeled_loader.sampler.set_epoch(epoch)
            yield from zip(self.labeled_loader, self.unlabeled_loader)
            epoch += 1

    def train_step(self, it, batch):
        (x_l, y_l), ((x_weak, x_strong), _) = batch
        x_l, y_l = x_l.to(self.device, non_blocking=True), y_l.to(self.device, non_blocking=True)
        x_weak, x_strong = x_weak.to(self.device, non_blocking=True), x_strong.to(self.device, non_blocking=True)

        sup_loss = F.cross_entropy(self.model(x_l), y_l)
        student_probs = F.softmax(self.model(x_strong), dim=1)
        teacher_probs = F.softmax(self.ema.module(x_weak), dim=1)
        cons_loss = F.mse_loss(student_probs, teacher_probs)
        weight = self.consistency * sigmoid_rampup(it, self.rampup_iters)
        loss = sup_loss + weight * cons_loss

        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.ema.update(self.raw_model)
        return {"sup": sup_loss.item(), "cons": cons_loss.item(), "w": weight}
