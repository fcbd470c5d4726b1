"""DSL302 when the epoch loop hands the loader to a function that makes the pass over it
(`for epoch in ...: train_one_epoch(model, loader, ...)`, the DeiT/MAE/DETR shape), here or in an
engine module, and nothing sets the sampler's epoch."""
from __future__ import annotations

TRAIN = """import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from engine import train_one_epoch

dist.init_process_group("nccl")
ds = list(range(10))
sampler = DistributedSampler(ds, shuffle=True)
loader = DataLoader(ds, batch_size=2, sampler=sampler)
for epoch in range(3):
    train_one_epoch(print, loader, epoch)
"""
ENGINE = """def train_one_epoch(model, data_loader, epoch, logger=None):
    for batch in LOOP:
        model(batch)
"""
FACTORY_TRAIN = """import torch.distributed as dist

from data import build_loaders
from engine import train_one_epoch

dist.init_process_group("nccl")
train_loader, val_loader = build_loaders(list(range(10)))
for epoch in range(3):
    train_one_epoch(print, train_loader, epoch)
"""
DATA = """from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(ds):
    return DataLoader(ds, sampler=DistributedSampler(ds)), DataLoader(ds)
"""


def rows(project, train=TRAIN, loop="data_loader", files=None):
    project.write({"train.py": train, "engine.py": ENGINE.replace("LOOP", loop), "data.py": DATA,
                   "run.sh": "torchrun --nproc_per_node 2 train.py\n", **(files or {})})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL302"]).findings]


def test_a_loader_handed_each_epoch_to_an_engine_function_that_iterates_it(project):
    assert rows(project) == [("train.py", 8)]
    assert rows(project, loop="logger.log_every(data_loader, 10)") == [("train.py", 8)]
    project.fix(select=["DSL302"])
    assert "for epoch in range(3):\n    sampler.set_epoch(epoch)\n    train_one_epoch(" in project.read("train.py")


def test_a_factory_loader_handed_each_epoch_is_reported_at_the_factory_call(project):
    assert rows(project, train=FACTORY_TRAIN) == [("train.py", 7)]


def test_a_callee_that_does_not_iterate_it_or_a_set_epoch_anywhere_is_clean(project):
    assert rows(project, loop="range(3)") == []
    setter = "def bump(loader, epoch):\n    loader.sampler.set_epoch(epoch)\n"
    assert rows(project, files={"other.py": setter},
                train=TRAIN.replace("from engine import train_one_epoch",
                                    "from engine import train_one_epoch\nfrom other import bump")
                .replace("    train_one_epoch(", "    bump(loader, epoch)\n    train_one_epoch(")) == []
    assert rows(project, train=FACTORY_TRAIN, loop="range(3)") == []


def test_a_local_function_that_iterates_the_loader_counts_too(project):
    local = TRAIN.replace("from engine import train_one_epoch\n",
                          "\n\ndef train_one_epoch(model, data_loader, epoch):\n    for batch in data_loader:\n"
                          "        model(batch)\n")
    assert rows(project, train=local) == [("train.py", 12)]
