"""A loader a base class in another module stores in `self.x` (the subclass's epoch loop needs its
set_epoch: DSL302), and tables of loader builders (`BUILDERS[name](...)` is every builder of the
table: DSL301 when none of them gives a sampler)."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.program import ProgramIndex, inherited_epoch_loops
from dslint.facts.script import build_script_facts


def exports_of(text: str, path: str = "m.py"):
    return summarise_module(build_script_facts(path, text, ast.parse(text)))


STORES = """from torch.utils.data import DataLoader, DistributedSampler
from pkg.core import Core


class Holder(Core):
    def setup(self, ds, other):
        picks = DistributedSampler(ds)
        self.train_dl = DataLoader(ds, batch_size=4, sampler=picks)
        self.eval_dl = DataLoader(other, sampler=DistributedSampler(other, shuffle=False))
        self.plain_dl = DataLoader(ds, batch_size=4)
        self.step = 0

    def swap(self, ds):
        self.eval_dl = ds


class Alone:
    def __init__(self):
        self.count = 0
        self.train_dl = DataLoader([1, 2], sampler=DistributedSampler([1, 2]))
"""


def test_a_class_summary_says_what_its_methods_store_in_self():
    classes = exports_of(STORES).classes
    holder = classes["Holder"].attributes
    assert holder["self.train_dl"] == ("distributed-shuffle", 7)  # (the sampler's row)
    assert holder["self.plain_dl"] == ("plain", 10)
    assert holder["self.eval_dl"] == ("", 0)  # two stores that disagree: unknown
    assert holder["self.step"] == ("", 0)
    # (a class with no project base needs no "" entries: nothing above it stores a loader)
    assert classes["Alone"].attributes == {"self.train_dl": ("distributed-shuffle", 20)}


TABLES = """from torch.utils.data import DataLoader
from .extra import imported_builder


def build_x(bs):
    return DataLoader(range(10), batch_size=bs, shuffle=True)


def build_y(bs):
    return DataLoader(range(20), batch_size=bs)


BUILDERS = {"x": build_x, "y": build_y}
ORDERED = [build_x, imported_builder]
MIXED = {"x": build_x, "n": 3}
GROWN = {"x": build_x}
GROWN["y"] = build_y
UPDATED = (build_x,)
TWICE = [build_y]
TWICE = [build_x]


def more():
    UPDATED.count(build_x)
"""


def test_a_constant_table_of_functions_is_a_module_fact_unless_it_may_hold_something_else():
    tables = exports_of(TABLES).function_tables
    assert tables == {"BUILDERS": ("build_x", "build_y"), "ORDERED": ("build_x", "imported_builder")}


def test_the_lineage_of_a_class_follows_its_bases_through_other_modules():
    modules = {
        "pkg/__init__.py": "",
        "pkg/core.py": "from torch.utils.data import DataLoader\n\n\nclass Core:\n    def setup(self, ds):\n"
                       "        self.dl = DataLoader(ds)\n",
        "pkg/mid.py": "from .core import Core\n\n\nclass Mid(Core):\n    def epoch(self):\n"
                      "        for b in self.dl:\n            pass\n",
        "app.py": "import torch\nfrom pkg.mid import Mid\n\n\nclass App(Mid, torch.nn.Module):\n    def run(self):\n"
                  "        for e in range(3):\n            for b in self.dl:\n                pass\n",
    }
    index = ProgramIndex({p: exports_of(t, p) for p, t in modules.items()})
    assert [(s.path, s.name) for s in index.lineage("app.py", "App")] == [
        ("app.py", "App"), ("pkg/mid.py", "Mid"), ("pkg/core.py", "Core")]
    assert index.lineage("app.py", "Nope") == []


def test_an_inherited_epoch_loop_finds_the_nearest_class_that_stores_the_attribute():
    modules = {
        "base.py": "from torch.utils.data import DataLoader, DistributedSampler\n\n\nclass Base:\n"
                   "    def __init__(self, ds):\n        self.dl = DataLoader(ds, sampler=DistributedSampler(ds))\n\n"
                   "    def one_epoch(self):\n        for b in self.dl:\n            pass\n",
        "child.py": "from base import Base\n\n\nclass Child(Base):\n    def fit(self, n):\n"
                    "        for epoch in range(n):\n            self.one_epoch()\n",
    }
    index = ProgramIndex({p: exports_of(t, p) for p, t in modules.items()})
    [found] = inherited_epoch_loops(index.lineage("child.py", "Child"))
    assert (found.attribute, found.loop.name, found.method, found.counter) == ("self.dl", "Child", "fit", "epoch")
    assert (found.store.name, found.kind, found.row) == ("Base", "distributed-shuffle", 6)


# -- DSL302: the loader in a base class of another module -----------------------------------------

TRAINER_BASE = """import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class LoopBase:
    def prepare(self, dataset):
        dist.init_process_group("nccl")
        order = DistributedSampler(dataset{shuffle})
        self.train_dl = DataLoader(dataset, batch_size=16, sampler=order)
{extra}"""

RUNNER = """import torch
from trainers.loop_base import LoopBase


class Runner(LoopBase):
    def one_epoch(self):
        for batch in self.train_dl:
            pass

    def run(self, epochs):
        for ep in range(epochs):
            self.one_epoch()
{extra}

if __name__ == "__main__":
    r = Runner()
    r.prepare(torch.randn(64, 4))
    r.run(5)
"""


def write_trainer(project, shuffle: str = "", base_extra: str = "", runner_extra: str = ""):
    project.write({"trainers/__init__.py": "", "trainers/loop_base.py": TRAINER_BASE.format(shuffle=shuffle, extra=base_extra),
                   "run.py": RUNNER.format(extra=runner_extra)})


def test_an_epoch_loop_over_a_loader_a_base_class_elsewhere_stores_needs_set_epoch(project):
    write_trainer(project)
    findings = [f for f in project.check().findings if f.code == "DSL302"]
    assert [(f.path, f.span.start.row) for f in findings] == [("run.py", 11)]
    assert "self.train_dl.sampler.set_epoch" in findings[0].message and "loop_base.py:8" in findings[0].message
    project.fix(select=["DSL302"])
    assert "            self.train_dl.sampler.set_epoch(ep)\n            self.one_epoch()" in project.read("run.py")
    assert "DSL302" not in project.codes()


def test_an_inherited_loader_that_is_not_shuffled_or_gets_its_epoch_or_is_replaced_is_not_flagged(project):
    write_trainer(project, shuffle=", shuffle=False")
    assert "DSL302" not in project.codes()
    write_trainer(project, base_extra="\n    def at_epoch(self, ep):\n        self.train_dl.sampler.set_epoch(ep)\n")
    assert "DSL302" not in project.codes()
    # (the subclass stores its own `self.train_dl`: the base's loader is not the one it loops over)
    write_trainer(project, runner_extra="\n    def prepare(self, dataset):\n        self.train_dl = make(dataset)\n")
    assert "DSL302" not in project.codes()


# -- DSL301: a table of loader builders ------------------------------------------------------------

BUILDERS = """import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def cifar_loader(bs):
    data = TensorDataset(torch.randn(256, 3))
    return DataLoader(data, batch_size=bs, shuffle=True)


def mnist_loader(bs):
    data = TensorDataset(torch.randn(256, 1))
    return DataLoader(data, batch_size=bs{mnist})


DATASETS = {{"cifar": cifar_loader, "mnist": mnist_loader}}
{extra}"""

ENTRY = """import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

{imports}

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="cifar")
args = parser.parse_args()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
net = DDP(torch.nn.Linear(4, 4).cuda())
train_loader = {call}(32)
for (x,) in train_loader:
    net(x.cuda()).sum().backward()
"""


def write_registry(project, imports="from data.registry import DATASETS", call="DATASETS[args.data]", mnist="",
                   extra=""):
    project.write({"data/__init__.py": "", "data/registry.py": BUILDERS.format(mnist=mnist, extra=extra),
                   "train.py": ENTRY.format(imports=imports, call=call)})


def test_a_loader_from_a_table_of_builders_that_all_lack_a_sampler_is_flagged(project):
    write_registry(project)
    findings = [f for f in project.check().findings if f.code == "DSL301"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 16)]
    assert findings[0].message.startswith("DATASETS[...]() (data/registry.py:7) builds a DataLoader")


def test_the_table_is_found_through_an_alias_or_its_module(project):
    write_registry(project, imports="from data.registry import DATASETS as TABLE", call="TABLE[args.data]")
    assert "DSL301" in project.codes()
    write_registry(project, imports="import data.registry as reg", call="reg.DATASETS[args.data]")
    assert "DSL301" in project.codes()


def test_a_table_whose_builders_disagree_or_that_may_grow_is_not_flagged(project):
    write_registry(project, mnist=", sampler=DistributedSampler(data)")
    assert "DSL301" not in project.codes()
    write_registry(project, extra="DATASETS.update(extra_loaders())\n")
    assert "DSL301" not in project.codes()
