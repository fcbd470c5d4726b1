"""DSL301 and datasets built through a registry table (`DATASETS[name](**kw)`) that a decorator of
another module fills (`@register("c4")`): silent when every registered class is an IterableDataset
(it shards itself), reported when one is a map-style Dataset."""
from __future__ import annotations

REGISTRY = '''DATASETS = {}


def register(name):
    def decorator(cls):
        DATASETS[name] = cls
        return cls
    return decorator


def build_dataset(name, **kwargs):
    from data import streams  # noqa: F401
    return DATASETS[name](**kwargs)
'''
STREAMS = '''from torch.utils.data import BASE

from data.registry import register


@register("tokens")
class Tokens(BASE):
    def __init__(self, path):
        self.path = path


@register("tokens_val")
class HeldOut(Tokens):
    pass
'''
TRAIN = '''import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from data.registry import build_dataset


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    loader = DataLoader(build_dataset("tokens", path="x"), batch_size=8)
    for batch in loader:
        pass


if __name__ == "__main__":
    main()
'''


def codes(project, base, literal_table=False):
    registry = REGISTRY
    files = {"data/__init__.py": "", "data/streams.py": STREAMS.replace("BASE", base), "train.py": TRAIN,
             "run.sh": "torchrun --nproc_per_node 8 train.py\n"}
    if literal_table:  # a table written out: `DATASETS = {"tokens": Tokens}`
        registry = ("from data.streams import Tokens\n\nDATASETS = {'tokens': Tokens}\n\n\n"
                    "def build_dataset(name, **kwargs):\n    return DATASETS[name](**kwargs)\n")
        files["data/streams.py"] = f"from torch.utils.data import {base}\n\n\nclass Tokens({base}):\n    pass\n"
    files["data/registry.py"] = registry
    project.write(files)
    return sorted({f.code for f in project.check(select=["DSL301"]).findings})


def test_every_registered_class_iterable_is_silent(project):
    assert codes(project, "IterableDataset") == []


def test_a_map_style_registered_class_is_reported(project):
    assert codes(project, "Dataset") == ["DSL301"]


def test_a_literal_table_of_classes_is_read_as_well(make_project):
    assert codes(make_project("iterable"), "IterableDataset", literal_table=True) == []
    assert codes(make_project("map"), "Dataset", literal_table=True) == ["DSL301"]


def test_a_table_that_is_no_registry_keeps_the_finding(project):
    project.write({"data/__init__.py": "", "data/registry.py": "DATASETS = {}\n\n\ndef build_dataset(name):\n"
                   "    return DATASETS[name]()\n", "train.py": TRAIN, "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    assert [f.code for f in project.check(select=["DSL301"]).findings] == ["DSL301"]
