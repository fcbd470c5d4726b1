"""DSL302 in a trainer class: the sampler is built in one method, the loader iterated in another,
and the epoch loop is a third that calls it (`self.train_epoch()`)."""
from __future__ import annotations

TRAINER = """import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, dataset, hooks=()):
        dist.init_process_group("nccl")
        self.hooks = list(hooks)
        sampler = DistributedSampler(dataset, shuffle=True)
        self.train_loader = DataLoader(dataset, batch_size=8, sampler=sampler)

    def train_epoch(self):
        for batch in self.train_loader:
            pass

    def fit(self, epochs):
        for epoch in range(epochs):
            for hook in self.hooks:
                hook.on_epoch_start(self, epoch)
            self.train_epoch()
"""
MAIN = "from trainer import Trainer\nfrom hooks import Log\n\nTrainer([], hooks=[Log()]).fit(3)\n"
HOOKS = "class Log:\n    def on_epoch_start(self, trainer, epoch):\n        print(epoch)\n"


def _rows(project, hooks=HOOKS, trainer=TRAINER):
    project.write({"trainer.py": trainer, "main.py": MAIN, "hooks.py": hooks,
                   "run.sh": "torchrun --nproc_per_node 4 main.py\n"})
    return [(f.path, f.span.start.row, f.fix is None) for f in project.check(select=["DSL302"]).findings]


def test_an_epoch_loop_calling_the_method_that_iterates_the_loader_repeats_one_order(project):
    assert _rows(project) == [("trainer.py", 12, True)]  # (no fix: `sampler` is no name in fit())


def test_a_hook_of_the_program_that_sets_the_epoch_may_be_the_one(project):
    hooks = HOOKS + "\n    def on_epoch_end(self, trainer, epoch):\n        trainer.train_loader.sampler.set_epoch(epoch)\n"
    assert _rows(project, hooks=hooks) == []


def test_a_method_called_once_outside_a_loop_is_no_epoch_loop(project):
    once = TRAINER.replace("        for epoch in range(epochs):\n            for hook in self.hooks:\n"
                           "                hook.on_epoch_start(self, epoch)\n            self.train_epoch()\n",
                           "        self.train_epoch()\n")
    assert _rows(project, trainer=once) == []
