"""DataLoaders that project functions return: alone or in a tuple, with which sampler, and what
the caller does with each (DSL301 for a loader with no sampler, DSL302 for a shuffling sampler
whose epoch is never set, in the caller's own epoch loop or in the trainer it hands the loader to)."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.script import build_script_facts


def exports_of(text: str, path: str = "m.py"):
    return summarise_module(build_script_facts(path, text, ast.parse(text)))


LOADERS = """from torch.utils.data import DataLoader, DistributedSampler


def make_loaders(train_set, dev_set, bs):
    train_dl = DataLoader(train_set, batch_size=bs, shuffle=True)
    val_dl = DataLoader(dev_set, batch_size=bs)
    return train_dl, val_dl


def sharded_loaders(train_set, dev_set, bs):
    picks = DistributedSampler(train_set)
    fixed = DistributedSampler(dev_set, None, None, False)
    return DataLoader(train_set, batch_size=bs, sampler=picks), len(train_set), DataLoader(dev_set, sampler=fixed)


def one_or_two(ds, both):
    if both:
        return DataLoader(ds), DataLoader(ds)
    return DataLoader(ds, sampler=DistributedSampler(ds)), DataLoader(ds)


def no_shuffle(ds):
    return DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False))
"""


def test_a_returned_tuple_says_per_element_which_sampler_each_loader_has():
    functions = exports_of(LOADERS).functions
    assert functions["make_loaders"].returned_loaders == (("none", 5, "train_dl"), ("none", 6, "val_dl"))
    assert functions["make_loaders"].loader_sampler is None  # the value itself is a tuple, not a loader
    sharded = functions["sharded_loaders"].returned_loaders
    assert [e[0] if e else None for e in sharded] == ["distributed-shuffle", None, "distributed"]
    assert functions["sharded_loaders"].loader_returned(0)[0] == "distributed-shuffle"
    assert functions["sharded_loaders"].loader_returned(-1)[0] == "distributed"
    assert functions["sharded_loaders"].loader_returned(5) is None


def test_tuple_returns_that_disagree_say_nothing_and_a_single_loader_says_whether_it_shuffles():
    functions = exports_of(LOADERS).functions
    assert "one_or_two" not in functions or functions["one_or_two"].returned_loaders == ()
    assert functions["no_shuffle"].loader_sampler == "distributed"
    assert functions["no_shuffle"].loader_returned(None) == ("distributed", 23, "")


CALLER = """from torch.nn.parallel import DistributedDataParallel as DDP

from helpers import build_loader, Settings
from loop import fit


def main(ds, net):
    cfg = Settings()
    dl = build_loader(ds, cfg)
    first, second = build_loader(ds, cfg), 3
    fit(DDP(net), dl, cfg, first)
"""


def test_a_name_bound_to_a_project_call_is_passed_on_with_where_it_came_from():
    (call,) = [c for c in exports_of(CALLER).calls if c.local == "fit"]
    facts = {a.position: (a.returned_by, a.loader_row) for a in call.arguments}
    assert facts[1] == (("build_loader", None), 9)
    assert facts[2] == (None, 0)  # a class's instance is never a DataLoader: not followed
    assert facts[3] == (None, 0)  # `first` is one element of a literal tuple, not of a call's value


ENTRY = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from pipeline.data import {function}


def main(train_set, dev_set, net):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = DDP(net.cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(net.parameters())
    {targets} = {function}(train_set, dev_set, 32)
    for ep in range(10):
        for x, y in {loop}:
            loss = torch.nn.functional.mse_loss(net(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate(net, {other})


def evaluate(net, batches):
    with torch.no_grad():
        return sum(float(net(x.cuda()).sum()) for x, _ in batches)
"""


def entry(function: str, targets: str, loop: str, other: str) -> str:
    return ENTRY.format(function=function, targets=targets, loop=loop, other=other)


def write(project, text: str, data: str = LOADERS):
    project.write({"train.py": text, "pipeline/__init__.py": "", "pipeline/data.py": data})


def test_the_training_element_of_a_returned_tuple_without_a_sampler_is_flagged_at_the_call(project):
    # (`val_dl` has no sampler either: its name says it is for evaluation)
    write(project, entry("make_loaders", "train_dl, val_dl", "train_dl", "val_dl"))
    findings = [f for f in project.check().findings if f.code == "DSL301"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 16)]
    assert "`train_dl`" in findings[0].message and "data.py:5" in findings[0].message


def test_an_element_the_building_function_names_for_evaluation_is_not_flagged(project):
    write(project, entry("make_loaders", "loader_a, loader_b", "loader_b", "loader_a"),
          LOADERS.replace("return train_dl, val_dl", "return val_dl, train_dl"))
    findings = [f for f in project.check().findings if f.code == "DSL301"]
    assert len(findings) == 1 and "`loader_b`" in findings[0].message


def test_a_returned_tuple_whose_training_loader_has_a_sampler_is_not_flagged(project):
    write(project, entry("sharded_loaders", "train_dl, n, dev_dl", "train_dl", "dev_dl"))
    assert "DSL301" not in project.codes()


def test_a_shuffling_sampler_from_a_project_function_needs_set_epoch_in_this_epoch_loop(project):
    write(project, entry("sharded_loaders", "train_dl, n, dev_dl", "train_dl", "dev_dl"))
    findings = [f for f in project.check().findings if f.code == "DSL302"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 16)]
    assert "train_dl.sampler.set_epoch(epoch)" in findings[0].message and "data.py:13" in findings[0].message
    project.fix(select=["DSL302"])
    fixed = project.read("train.py")
    assert "    for ep in range(10):\n        train_dl.sampler.set_epoch(ep)\n        for x, y in train_dl:\n" in fixed
    assert "DSL302" not in project.codes()


def test_an_unshuffled_or_already_epoched_loader_from_a_project_function_is_not_flagged(project):
    write(project, entry("sharded_loaders", "dev_dl, n, train_dl", "train_dl", "dev_dl"))
    assert "DSL302" not in project.codes()  # element 2 does not shuffle
    text = entry("sharded_loaders", "train_dl, n, dev_dl", "train_dl", "dev_dl")
    write(project, text.replace("        for x, y in train_dl:", "        train_dl.sampler.set_epoch(ep)\n"
                                "        for x, y in train_dl:"))
    assert "DSL302" not in project.codes()


def test_a_project_function_whose_module_sets_epochs_itself_is_not_flagged(project):
    data = LOADERS + "\n\ndef next_epoch(dl, ep):\n    dl.sampler.set_epoch(ep)\n"
    write(project, entry("sharded_loaders", "train_dl, n, dev_dl", "train_dl", "dev_dl"), data)
    assert "DSL302" not in project.codes()


RUNNER = """def run_epochs(model, batches, opt, epochs):
    for epoch in range(epochs):
        for x, y in batches:
            loss = (model(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
"""

HANDED_ON = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from pipeline.data import sharded_loaders
from pipeline.runner import run_epochs


def main(train_set, dev_set, net):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    net = DDP(net.cuda())
    train_dl, _, dev_dl = sharded_loaders(train_set, dev_set, 16)
    run_epochs(net, {given}, torch.optim.SGD(net.parameters(), lr=0.1), 5)
"""


def test_a_shuffling_loader_from_a_project_function_handed_to_an_epoch_loop_elsewhere_is_flagged_there(project):
    project.write({"train.py": HANDED_ON.format(given="train_dl"), "pipeline/__init__.py": "",
                   "pipeline/data.py": LOADERS, "pipeline/runner.py": RUNNER})
    findings = [f for f in project.check().findings if f.code == "DSL302"]
    assert [(f.path, f.span.start.row) for f in findings] == [("pipeline/runner.py", 2)]
    assert "train.py:15" in findings[0].message


def test_an_unshuffled_loader_from_a_project_function_handed_on_is_not_flagged(project):
    project.write({"train.py": HANDED_ON.format(given="dev_dl"), "pipeline/__init__.py": "",
                   "pipeline/data.py": LOADERS, "pipeline/runner.py": RUNNER})
    assert "DSL302" not in project.codes()


STREAMING = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, IterableDataset

from streams import IterableShard, ShardedStream


def loader_for(data, world):
    if isinstance(data, IterableDataset):
        if world > 1:
            data = ShardedStream(data, world)
        return DataLoader(data, batch_size=8)
    return DataLoader(data, batch_size=8, sampler=DistributedSampler(data))


def shard_stream(data, world):
    if world > 1:
        data = IterableShard(data, world)
    return DataLoader(data, batch_size=8)


def main(data, net):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    net = DDP(net.cuda())
    for x in loader_for(data, dist.get_world_size()):
        net(x.cuda()).sum().backward()
"""


def test_a_loader_under_an_iterable_dataset_check_or_over_a_dataset_that_may_be_a_stream_is_not_flagged(project):
    project.write({"train.py": STREAMING, "streams.py": "class ShardedStream:\n    pass\n\n\nIterableShard = ShardedStream\n"})
    assert "DSL301" not in project.codes()
    project.write({"train.py": STREAMING.replace("isinstance(data, IterableDataset)", "world > 0").replace(
        "data = ShardedStream(data, world)", "data = list(data)").replace("data = IterableShard(data, world)", "pass")})
    assert project.codes().count("DSL301") == 2  # (without either fact, both loaders are flagged)
