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


INIT_BUILT = """import deepspeed
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Trainer:
    def __init__(self, ds):
        BUILD

    def get_dataloader(self, ds):
        sampler = DistributedSampler(ds, shuffle=True)
        return DataLoader(ds, batch_size=2, sampler=sampler)

    def train(self):
        for epoch in range(3):
            for batch in self.loader:
                pass


if __name__ == "__main__":
    deepspeed.init_distributed()
    Trainer([1, 2]).train()
"""


def _fixed(project, build):
    project.write({"train.py": INIT_BUILT.replace("BUILD", build)})
    project.fix(select=["DSL302"])
    return [f.code for f in project.check(select=["DSL302"]).findings], (project.root / "train.py").read_text()


def test_the_fix_in_another_method_calls_set_epoch_on_the_loaders_sampler(project):
    inline = "sampler = DistributedSampler(ds, shuffle=True)\n        self.loader = DataLoader(ds, batch_size=2, sampler=sampler)"
    for build in (inline, "self.loader = self.get_dataloader(ds)"):
        codes, text = _fixed(project, build)
        assert codes == [] and "            self.loader.sampler.set_epoch(epoch)\n            for batch in self.loader:" in text
        assert "            sampler.set_epoch" not in text  # (no name the loop's method does not see)


FUNCTIONS = """import deepspeed
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(ds):
    deepspeed.init_distributed()
    sampler = DistributedSampler(ds, shuffle=True)
    loader = DataLoader(ds, batch_size=2, sampler=sampler)

    def training(epochs):
        for epoch in range(epochs):
            for batch in loader:
                pass

    training(3)


main([1, 2])
"""


def test_a_closure_sees_the_samplers_name_and_gets_the_fix(project):
    project.write({"train.py": FUNCTIONS})
    project.fix(select=["DSL302"])
    assert "            sampler.set_epoch(epoch)\n            for batch in loader:" in (project.root / "train.py").read_text()


AUDIO_DATA = """from torch.utils.data import DataLoader, DistributedSampler


class AudioData:
    def __init__(self, ds):
        self.sampler = DistributedSampler(ds, SHUFFLE)
        self.loader = DataLoader(ds, batch_size=4, sampler=self.sampler)
"""
AUDIO_MAIN = """import torch.distributed as dist

from data import AudioData


def main():
    dist.init_process_group("nccl")
    data = AudioData(list(range(10)))
    epoch = 0
    while epoch < 3:
        for batch in data.loader:
            pass
        epoch += 1


main()
"""


def _instance_rows(project, shuffle="shuffle=True", main=AUDIO_MAIN):
    project.write({"data.py": AUDIO_DATA.replace("SHUFFLE", shuffle), "train.py": main,
                   "run.sh": "torchrun --nproc_per_node 2 train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL302"]).findings]


def test_a_loader_of_an_instance_of_another_modules_class_needs_set_epoch(project):
    assert _instance_rows(project) == [("train.py", 10)]
    project.fix(select=["DSL302"])
    assert "    while epoch < 3:\n        data.loader.sampler.set_epoch(epoch)\n" in project.read("train.py")
    assert _instance_rows(project, main=project.read("train.py")) == []


def test_no_shuffle_or_a_set_epoch_in_the_program_is_clean(project):
    assert _instance_rows(project, shuffle="shuffle=False") == []
    assert _instance_rows(project, main=AUDIO_MAIN.replace("        for batch", "        data.sampler.set_epoch(epoch)\n        for batch")) == []


DATAMODULE = """from torch.utils.data import DataLoader, DistributedSampler


class SpeechData:
    def __init__(self, ds):
        self.ds = ds

    def train_dataloader(self):
        sampler = DistributedSampler(self.ds, SHUFFLE)
        return DataLoader(self.ds, batch_size=4, sampler=sampler)
"""
LOOPING_TRAINER = """class Trainer:
    def __init__(self, model, datamodule, epochs):
        self.model = model
        self.epochs = epochs
        self.train_loader = datamodule.train_dataloader()

    def _train_epoch(self):
        for batch in self.train_loader:
            self.model(batch)

    def fit(self):
        for epoch in range(self.epochs):
            self._train_epoch()
"""
DM_MAIN = """import torch.distributed as dist

from data import SpeechData
from engine import Trainer


def main():
    dist.init_process_group("nccl")
    dm = SpeechData(list(range(10)))
    Trainer(print, dm, 3).fit()


main()
"""


def _datamodule_rows(project, shuffle="shuffle=True", trainer=LOOPING_TRAINER, main=DM_MAIN):
    project.write({"data.py": DATAMODULE.replace("SHUFFLE", shuffle), "engine.py": trainer, "train.py": main,
                   "run.sh": "torchrun --nproc_per_node 2 train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL302"]).findings]


def test_a_trainer_storing_a_datamodule_loader_needs_set_epoch_in_its_epoch_loop(project):
    assert _datamodule_rows(project) == [("engine.py", 12)]
    project.fix(select=["DSL302"])
    assert "        for epoch in range(self.epochs):\n            self.train_loader.sampler.set_epoch(epoch)\n" \
        in project.read("engine.py")
    assert _datamodule_rows(project, trainer=project.read("engine.py")) == []


def test_a_datamodule_loader_without_shuffle_or_with_set_epoch_somewhere_is_clean(project):
    assert _datamodule_rows(project, shuffle="shuffle=False") == []
    setting = LOOPING_TRAINER.replace("            self._train_epoch()",
                                      "            self.train_loader.sampler.set_epoch(epoch)\n            self._train_epoch()")
    assert _datamodule_rows(project, trainer=setting) == []


MIXIN_BASE = """class BaseTrainer:
    def __init__(self, model, train_loader, epochs):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs

    def fit(self):
        for epoch in range(self.epochs):
            self.train_one_epoch()
"""
MIXINS = """class TrainLoopMixin:
    def train_one_epoch(self):
        for batch in self.train_loader:
            self.model(batch)
"""
MIXIN_ENGINE = """from .base import BaseTrainer
from .mixins import TrainLoopMixin


class ClassifierTrainer(TrainLoopMixin, BaseTrainer):
    pass
"""
MIXIN_DATA = """from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(ds):
    sampler = DistributedSampler(ds, shuffle=True)
    return DataLoader(ds, batch_size=4, sampler=sampler), DataLoader(ds, batch_size=4)
"""
MIXIN_MAIN = """import torch.distributed as dist

from pkg import data
from pkg.engine import ClassifierTrainer

dist.init_process_group("nccl")
train_loader, val_loader = data.build_loaders(list(range(10)))
ClassifierTrainer(print, train_loader, 3).fit()
"""


def test_a_trainer_assembled_from_mixins_needs_set_epoch_in_its_bases_epoch_loop(project):
    files = {"pkg/__init__.py": "", "pkg/data.py": MIXIN_DATA, "pkg/engine/__init__.py": MIXIN_ENGINE,
             "pkg/engine/base.py": MIXIN_BASE, "pkg/engine/mixins.py": MIXINS, "train.py": MIXIN_MAIN,
             "run.sh": "torchrun --nproc_per_node 2 train.py\n"}
    project.write(files)
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL302"]).findings] == [("pkg/engine/base.py", 8)]
    project.write({"pkg/engine/mixins.py": MIXINS.replace("        for batch", "        self.train_loader.sampler.set_epoch(0)\n        for batch")})
    assert project.check(select=["DSL302"]).findings == []
