"""DSL301: a dataset class picked by name (`getattr(streams, fmt)`) or bound to a name (`cls = streams.X`)."""
from __future__ import annotations

TRAIN = ("import os\n\nimport torch\nimport torch.distributed as dist\nfrom torch.utils.data import DataLoader\n\n"
         "from corpus import streams\n\n\n"
         "def train(data='shards/*.jsonl', fmt='JsonlTokens'):\n"
         "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
         "    dist.init_process_group('nccl')\n"
         "    MAKE\n"
         "    loader = DataLoader(dataset, batch_size=8, num_workers=4)\n"
         "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())\n"
         "    for batch in loader:\n"
         "        model(batch.cuda()).sum().backward()\n\n\n"
         "if __name__ == '__main__':\n    train()\n")

STREAMS = ("import torch.distributed as dist\nfrom torch.utils.data import Dataset, IterableDataset\n\n\n"
           "class _Sharded(IterableDataset):\n"
           "    def __init__(self, pattern):\n        self.files = [pattern]\n\n"
           "    def __iter__(self):\n"
           "        yield from self.files[dist.get_rank()::dist.get_world_size()]\n\n\n"
           "class JsonlTokens(_Sharded):\n    pass\n\n\n"
           "class TensorShards(_Sharded):\n    pass\n")

MAP_STYLE = "\n\nclass Indexed(Dataset):\n    def __init__(self, path):\n        self.path = path\n"

PICKS = ("dataset_cls = getattr(streams, fmt)\n    dataset = dataset_cls(data)",
         "dataset = getattr(streams, fmt)(data)",
         "dataset_cls = streams.JsonlTokens\n    dataset = dataset_cls(data)",
         "dataset_cls = streams.JsonlTokens if fmt == 'jsonl' else streams.TensorShards\n    dataset = dataset_cls(data)",
         "dataset_cls = getattr(streams, 'TensorShards')\n    dataset = dataset_cls(data)")


def rows(project):
    return [f.span.start.row for f in project.check(select=["DSL301"]).findings if f.code == "DSL301"]


def test_a_class_picked_from_a_module_of_iterable_datasets_is_iterable(project):
    for make in PICKS:
        project.write({"train.py": TRAIN.replace("MAKE", make), "corpus/__init__.py": "",
                       "corpus/streams.py": STREAMS})
        assert rows(project) == [], make


def test_a_base_imported_by_the_module_counts_as_one_of_its_classes(project):
    base, rest = STREAMS.split("class JsonlTokens")
    project.write({"train.py": TRAIN.replace("MAKE", PICKS[0]), "corpus/__init__.py": "",
                   "corpus/base.py": base, "corpus/streams.py": "from .base import _Sharded\n\n\nclass JsonlTokens" + rest})
    assert rows(project) == []


def test_a_module_that_also_holds_a_map_style_dataset_is_still_reported(project):
    for make in PICKS[:2]:
        project.write({"train.py": TRAIN.replace("MAKE", make), "corpus/__init__.py": "",
                       "corpus/streams.py": STREAMS + MAP_STYLE})
        assert len(rows(project)) == 1, make


def test_a_map_style_class_bound_to_a_name_is_still_reported(project):
    project.write({"train.py": TRAIN.replace("MAKE", "dataset_cls = streams.Indexed\n    dataset = dataset_cls(data)"),
                   "corpus/__init__.py": "", "corpus/streams.py": STREAMS + MAP_STYLE})
    assert len(rows(project)) == 1
    project.write({"train.py": TRAIN.replace("MAKE", "dataset_cls = getattr(streams, 'Indexed')\n    dataset = dataset_cls(data)"),
                   "corpus/__init__.py": "", "corpus/streams.py": STREAMS + MAP_STYLE})
    assert len(rows(project)) == 1


def test_a_module_with_a_public_function_or_a_parameter_class_is_still_reported(project):
    project.write({"train.py": TRAIN.replace("MAKE", PICKS[0]), "corpus/__init__.py": "",
                   "corpus/streams.py": STREAMS + "\n\ndef indexed(path):\n    return list(open(path))\n"})
    assert len(rows(project)) == 1
    project.write({"train.py": TRAIN.replace("MAKE", "dataset = fmt(data)"), "corpus/__init__.py": "",
                   "corpus/streams.py": STREAMS})
    assert len(rows(project)) == 1


def test_a_local_class_bound_to_a_name(project):
    local = STREAMS.replace("import torch.distributed as dist\n", "")
    train = TRAIN.replace("from corpus import streams\n", local)
    project.write({"train.py": train.replace("MAKE", "dataset_cls = JsonlTokens\n    dataset = dataset_cls(data)")})
    assert rows(project) == []
    project.write({"train.py": (train + MAP_STYLE).replace("MAKE", "dataset_cls = Indexed\n    dataset = dataset_cls(data)")})
    assert len(rows(project)) == 1
