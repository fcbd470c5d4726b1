"""What helpers of other modules return: a DataLoader from a method of a project class, called on an
instance the caller built (DSL302 when its shuffling DistributedSampler never gets set_epoch), and a
model a project function (or method) has already wrapped in DDP/FSDP (DSL306 when it is handed to
DeepSpeed or Accelerate, which wrap it again)."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.program import ProgramIndex
from dslint.facts.script import build_script_facts


def exports_of(text: str, path: str = "m.py"):
    return summarise_module(build_script_facts(path, text, ast.parse(text)))


WRAPPERS = """import torch
from torch.nn.parallel import DistributedDataParallel
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def wrapped(net, rank):
    net = net.to(rank)
    ddp = DistributedDataParallel(net, device_ids=[rank])
    return ddp


def maybe_wrapped(net, world):
    if world > 1:
        return DistributedDataParallel(net)
    return net


def sharded(net):
    return FSDP(net)


def mixed(net, flat):
    if flat:
        return FSDP(net)
    return DistributedDataParallel(net)


class Factory:
    def make(self, net):
        return DistributedDataParallel(net.cuda())
"""


def test_a_function_whose_every_return_is_a_wrapper_says_which_and_a_maybe_says_nothing():
    exports = exports_of(WRAPPERS)
    functions = exports.functions
    assert functions["wrapped"].returns_wrapper == ("DDP", 8)
    assert functions["sharded"].returns_wrapper == ("FSDP", 19)
    assert "maybe_wrapped" not in functions or functions["maybe_wrapped"].returns_wrapper is None
    assert "mixed" not in functions or functions["mixed"].returns_wrapper is None
    assert exports.classes["Factory"].methods["make"].returns_wrapper == ("DDP", 30)


def test_a_module_that_builds_no_wrapper_pays_nothing_and_says_nothing():
    exports = exports_of("def build(net):\n    return net.eval()\n")  # (`.cuda()` says something: inits_cuda)
    assert exports.functions == {}


def program(files: dict) -> ProgramIndex:
    return ProgramIndex({path: exports_of(text, path) for path, text in files.items()})


DATA_BASE = """from torch.utils.data import DataLoader, DistributedSampler


class Base:
    def __init__(self, ds):
        self.ds = ds

    def train_loader(self):
        return DataLoader(self.ds, batch_size=8, sampler=DistributedSampler(self.ds))
"""


def test_a_method_is_found_on_the_class_or_up_a_chain_of_single_project_bases():
    index = program({
        "data/base.py": DATA_BASE,
        "data/shards.py": "from .base import Base\n\n\nclass Shards(Base):\n    pass\n",
        "data/mixed.py": "from .base import Base\nimport abc\n\n\nclass Mixed(abc.ABC, Base):\n    pass\n",
        "train.py": "from data.shards import Shards\nfrom data.mixed import Mixed\nfrom data.base import Base\n",
    })
    found = index.callee("train.py", "Shards().train_loader")
    assert found is not None and found.path == "data/base.py" and found.name == "Base.train_loader"
    assert found.function.loader_sampler == "distributed-shuffle"
    assert index.callee("train.py", "Base().train_loader").function is found.function
    assert index.callee("train.py", "Mixed().train_loader") is None  # (which base's runs: the MRO decides)
    assert index.callee("train.py", "Shards().val_loader") is None


def test_a_subclass_that_overrides_the_method_with_nothing_known_hides_the_base_one():
    override = "from .base import Base\n\n\nclass Shards(Base):\n    cap = 3\n\n    def train_loader(self):\n" \
               "        return self.ds\n"
    index = program({"data/base.py": DATA_BASE, "data/shards.py": override,
                     "train.py": "from data.shards import Shards\n"})
    assert index.callee("train.py", "Shards().train_loader") is None


# -- DSL302: the loader a method returns, iterated by the caller's own epoch loop ------------------

DATA = """from torch.utils.data import DataLoader, DistributedSampler


class Shards:
    def __init__(self, ds, bs):
        self.ds, self.bs = ds, bs

    def build_train(self):
        picks = DistributedSampler(self.ds, shuffle={shuffle})
        return DataLoader(self.ds, batch_size=self.bs, sampler=picks)

    def both(self):
        return self.build_train(), DataLoader(self.ds, sampler=DistributedSampler(self.ds))
{extra}"""

ENTRY = """import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import pipeline.datasets as datasets


def main(ds, net, epochs):
    dist.init_process_group("nccl")
    model = DDP(net.cuda())
    data = datasets.Shards(ds, 16)
    {bind}
    epoch = 0
    while epoch < epochs:
        for x, y in {loop}:
            model(x).sum().backward()
        epoch += 1


if __name__ == "__main__":
    main(None, None, 3)
"""


def write(project, bind: str, loop: str, shuffle: str = "True", extra: str = ""):
    project.write({"train.py": ENTRY.format(bind=bind, loop=loop), "pipeline/__init__.py": "",
                   "pipeline/datasets.py": DATA.format(shuffle=shuffle, extra=extra)})


def dsl302(project):
    return [(f.path, f.span.start.row, f.message) for f in project.check().findings if f.code == "DSL302"]


def test_a_shuffling_loader_from_a_method_of_an_imported_class_needs_set_epoch_in_the_callers_epoch_loop(project):
    write(project, "train_iter = data.build_train()", "train_iter")
    found = dsl302(project)
    assert [(path, row) for path, row, _ in found] == [("train.py", 12)]
    assert "loader: pipeline/datasets.py:10" in found[0][2]


def test_one_element_of_a_tuple_a_method_returns_is_followed_too(project):
    write(project, "train_iter, val_iter = data.both()", "val_iter")
    assert [(path, row) for path, row, _ in dsl302(project)] == [("train.py", 12)]


def test_an_unshuffled_or_epoch_setting_data_module_is_not_flagged(project):
    write(project, "train_iter = data.build_train()", "train_iter", shuffle="False")
    assert dsl302(project) == []
    epoch_hook = "\n    def start_epoch(self, loader, epoch):\n        loader.sampler.set_epoch(epoch)\n"
    write(project, "train_iter = data.build_train()", "train_iter", extra=epoch_hook)
    assert dsl302(project) == []


def test_an_instance_whose_class_is_not_known_for_sure_says_nothing(project):
    write(project, "data = data if epochs else datasets.Shards(ds, 8)\n    train_iter = data.build_train()",
          "train_iter")
    assert dsl302(project) == []


def test_a_data_module_kept_on_self_and_iterated_by_the_trainers_own_loop_is_followed(project):
    entry = """import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from pipeline.datasets import Shards


class Runner:
    def __init__(self, ds, net):
        self.data = Shards(ds, 32)
        self.model = DDP(net)

    def fit(self, epochs):
        loader = self.data.build_train()
        for epoch in range(epochs):
            for batch in loader:
                self.model(batch).sum().backward()


if __name__ == "__main__":
    dist.init_process_group("nccl")
    Runner(None, None).fit(4)
"""
    project.write({"train.py": entry, "pipeline/__init__.py": "",
                   "pipeline/datasets.py": DATA.format(shuffle="True", extra="")})
    found = project.check().findings
    assert [(f.code, f.span.start.row) for f in found if f.code == "DSL302"] == [("DSL302", 13)]
    fixed = project.fix()
    assert "loader.sampler.set_epoch(epoch)" in (project.root / "train.py").read_text()
    assert fixed is not None


def test_a_lightning_data_module_the_trainer_iterates_is_not_flagged(project):
    data = """import lightning as L
from torch.utils.data import DataLoader, DistributedSampler


class Images(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(self.ds, sampler=DistributedSampler(self.ds))
"""
    entry = """import lightning as L

from images import Images


def main(model):
    dm = Images()
    loader = dm.train_dataloader()
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=5)
    for epoch in range(3):
        trainer.fit(model, train_dataloaders=loader)


if __name__ == "__main__":
    main(None)
"""
    project.write({"train.py": entry, "images.py": data})
    assert dsl302(project) == []


# -- DSL306: a model a helper of another module has already wrapped ---------------------------------

BUILD = """import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def build(width):
    net = torch.nn.Linear(width, width).cuda()
    return DDP(net, device_ids=[int(os.environ["LOCAL_RANK"])])


def build_plain(width):
    return torch.nn.Linear(width, width)


def build_if_distributed(width):
    net = torch.nn.Linear(width, width)
    if torch.distributed.is_initialized():
        net = DDP(net)
    return net


def build_with_optimizer(width):
    net = DDP(torch.nn.Linear(width, width))
    return net, torch.optim.SGD(net.parameters(), lr=0.1)


class Zoo:
    def __init__(self, width):
        self.width = width

    def wrapped(self):
        return DDP(torch.nn.Linear(self.width, self.width).cuda())
"""

DEEPSPEED_ENTRY = """import argparse

import deepspeed

from nets import factory


class Job:
    def __init__(self, args):
        self.args = args
        self.net = {make}

    def start(self):
        engine, *_ = deepspeed.initialize(args=self.args, model=self.net)
        return engine


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    Job(parser.parse_args()).start()
"""


def dsl306(project):
    return [(f.path, f.span.start.row, f.message) for f in project.check().findings if f.code == "DSL306"]


def write_deepspeed(project, make: str):
    project.write({"train.py": DEEPSPEED_ENTRY.format(make=make), "nets/__init__.py": "", "nets/factory.py": BUILD})


def test_a_model_a_project_function_returns_wrapped_in_ddp_is_flagged_where_deepspeed_gets_it(project):
    write_deepspeed(project, "factory.build(16)")
    found = dsl306(project)
    assert [(path, row) for path, row, _ in found] == [("train.py", 14)]
    assert "factory.py:9" in found[0][2] and "DistributedDataParallel" in found[0][2]


def test_a_plain_or_maybe_wrapped_or_unpacked_model_from_a_helper_is_not_flagged(project):
    for make in ("factory.build_plain(16)", "factory.build_if_distributed(16)",
                 "factory.build_with_optimizer(16)[0]"):
        write_deepspeed(project, make)
        assert dsl306(project) == [], make


def test_a_wrapped_model_from_a_method_of_an_imported_class_reaches_accelerate_prepare(project):
    entry = """from accelerate import Accelerator

from nets.factory import Zoo


def main():
    accelerator = Accelerator()
    zoo = Zoo(8)
    model, opt = accelerator.prepare(zoo.wrapped(), None)


if __name__ == "__main__":
    main()
"""
    project.write({"train.py": entry, "nets/__init__.py": "", "nets/factory.py": BUILD})
    assert [(path, row) for path, row, _ in dsl306(project)] == [("train.py", 9)]


def test_a_loader_asked_of_the_data_module_each_epoch_is_flagged_at_the_call(project):
    # (a new DistributedSampler every epoch starts at epoch 0: the same order each time)
    write(project, "pass", "enumerate(data.build_train())")
    found = dsl302(project)
    assert [(path, row) for path, row, _ in found] == [("train.py", 15)]
    assert "data.build_train()'s sampler" in found[0][2] and "pipeline/datasets.py:10" in found[0][2]


def test_a_loader_asked_of_the_data_module_for_one_pass_is_not_flagged(project):
    once = ENTRY.replace("    while epoch < epochs:\n        for x, y in {loop}:",
                         "    for x, y in {loop}:\n        if epoch:")
    project.write({"train.py": once.format(bind="pass", loop="data.build_train()"), "pipeline/__init__.py": "",
                   "pipeline/datasets.py": DATA.format(shuffle="True", extra="")})
    assert "if epoch:" in (project.root / "train.py").read_text()
    assert dsl302(project) == []


# -- DSL301: the same fact, for a loader a method builds without a sampler ---------------------------

PLAIN = """
    def plain(self):
        return DataLoader(self.ds, batch_size=self.bs, shuffle=True)

    def val_plain(self):
        return DataLoader(self.ds, batch_size=self.bs)

    def given(self, sampler=None):
        return DataLoader(self.ds, batch_size=self.bs, sampler=sampler)
"""


def dsl301(project):
    return [(f.path, f.span.start.row, f.message) for f in project.check().findings if f.code == "DSL301"]


def test_a_method_loader_without_a_sampler_is_flagged_in_a_ddp_script_and_a_passed_sampler_counts(project):
    write(project, "train_iter = data.plain()", "train_iter", extra=PLAIN)
    found = dsl301(project)
    assert [(path, row) for path, row, _ in found] == [("train.py", 12)]
    assert found[0][2].startswith("data.plain() (pipeline/datasets.py:16) builds a DataLoader")
    write(project, "train_iter = data.given()", "train_iter", extra=PLAIN)
    assert [(path, row) for path, row, _ in dsl301(project)] == [("train.py", 12)]
    for bind in ("train_iter = data.given(DistributedSampler(ds))", "train_iter = data.val_plain()"):
        write(project, "from torch.utils.data import DistributedSampler\n    " + bind, "train_iter", extra=PLAIN)
        assert dsl301(project) == [], bind


def test_a_loader_asked_for_with_the_epoch_each_epoch_is_not_flagged(project):
    extra = "\n    def for_epoch(self, epoch):\n" \
            "        return DataLoader(self.ds, sampler=DistributedSampler(self.ds, seed=epoch))\n"
    write(project, "pass", "data.for_epoch(epoch)", extra=extra)
    assert dsl302(project) == []
    write(project, "pass", "data.for_epoch(0)", extra=extra)
    assert [(path, row) for path, row, _ in dsl302(project)] == [("train.py", 15)]


def test_a_subclass_whose_module_sets_the_epoch_of_the_inherited_loader_is_not_flagged(project):
    shards = "from .base import Base\n\n\nclass Shards(Base):\n    def start(self, loader, epoch):\n" \
             "        loader.sampler.set_epoch(epoch)\n"
    files = {"train.py": ENTRY.format(bind="train_iter = data.train_loader()", loop="train_iter"),
             "pipeline/__init__.py": "", "pipeline/base.py": DATA_BASE, "pipeline/datasets.py": shards}
    project.write(files)
    assert dsl302(project) == []
    project.write({**files, "pipeline/datasets.py": "from .base import Base\n\n\nclass Shards(Base):\n    pass\n"})
    assert [(path, row) for path, row, _ in dsl302(project)] == [("train.py", 12)]
