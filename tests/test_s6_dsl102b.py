"""DSL102 and what shows a loaded file holds no GPU tensor, or is the rank's own: a sampler's state the
module saves, a return annotation, a Dataset base or a rank attribute set in another module, a file
name another project script saves from the CPU, a path built by a call that is given the rank."""
from __future__ import annotations

import pytest

HEAD = """import os
import torch
import torch.distributed as dist

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
"""
RUN = "torchrun --nproc_per_node=4 train.py\n"


def _codes(project, files: dict) -> list:
    project.write({"run.sh": RUN, **files})
    return [f.code for f in project.check(select=["DSL102"]).findings]


# -- a data loader's or sampler's state, saved by the module -----------------------------------------

SAMPLER = HEAD + """from bucketing import LengthSampler

batches = LengthSampler(range(1000), seed=int(os.environ.get("SEED", 0)))
if os.path.exists("resume.bin"):
    batches.load_state_dict(torch.load("resume.bin"))
for i, b in enumerate(batches):
    if i % 50 == 0:
        torch.save({SAVED}, "resume.bin")
"""


def test_a_sampler_state_read_back_into_the_sampler_is_not_flagged(project):
    assert _codes(project, {"train.py": SAMPLER.replace("{SAVED}", "batches.state_dict()")}) == []


def test_a_model_state_read_back_into_the_sampler_still_is(project):
    # what the module saves is not the sampler's state: the load proves nothing about its device
    body = SAMPLER.replace("{SAVED}", "net.state_dict()").replace("batches = ", "net = torch.nn.Linear(2, 2).cuda()\nbatches = ")
    assert _codes(project, {"train.py": body}) == ["DSL102"]


LOADER_NAME = HEAD + """
def resume(args):
    loader_progress = None
    if args.resume:
        loader_progress = torch.load(args.resume)
    return loader_progress


def checkpoint(train_loader, out):
    loader_progress = train_loader.state_dict()
    torch.save(loader_progress, out)
"""


def test_a_loader_state_loaded_under_the_name_the_module_saves_it_as_is_not_flagged(project):
    assert _codes(project, {"train.py": LOADER_NAME + "\nresume(None)\ncheckpoint(None, 'x')\n"}) == []


def test_a_name_saved_from_a_model_is_still_flagged(project):
    body = LOADER_NAME.replace("train_loader.state_dict()", "model.state_dict()").replace("train_loader, out", "model, out")
    assert _codes(project, {"train.py": body + "\nresume(None)\ncheckpoint(None, 'x')\n"}) == ["DSL102"]


# -- returned under an annotation that holds no tensor -------------------------------------------------

def _returned(annotation: str) -> str:
    return HEAD + f"""from typing import Dict, List, Tuple


def read_spans(path) -> {annotation}:
    blob = torch.load(path)
    spans = blob["spans"]
    return blob["rate"], spans


rate, spans = read_spans(os.environ["SPANS"])
"""


@pytest.mark.parametrize("annotation", ["Tuple[int, Dict[str, List[int]]]", "tuple[float, list[tuple[int, int]]]"])
def test_a_load_only_returned_under_a_tensor_free_annotation_is_not_flagged(project, annotation):
    assert _codes(project, {"train.py": _returned(annotation)}) == []


@pytest.mark.parametrize("annotation", ["Tuple[int, Dict[str, torch.Tensor]]", "dict", "Tuple[int, Any]"])
def test_an_annotation_that_may_hold_tensors_still_is(project, annotation):
    assert _codes(project, {"train.py": _returned(annotation)}) == ["DSL102"]


def test_a_load_also_read_outside_the_return_still_is(project):
    body = _returned("Tuple[int, Dict[str, List[int]]]").replace('    spans = blob["spans"]\n',
                                                                 '    spans = blob["spans"]\n    blob["w"].add_(1)\n')
    assert _codes(project, {"train.py": body}) == ["DSL102"]


# -- a Dataset base in another module ------------------------------------------------------------------

TRAIN_DS = HEAD + """from corpora.frames import FrameSet
from torch.utils.data import DataLoader, DistributedSampler

ds = FrameSet("cache")
for x in DataLoader(ds, sampler=DistributedSampler(ds), num_workers=2):
    pass
"""
FRAMES = """import torch
from corpora import Cached


class FrameSet(Cached):
    def __getitem__(self, i):
        return torch.load(f"{self.root}/frame{i}.pt")
"""


@pytest.mark.parametrize("base", [
    "import torch.utils.data as tud\n\n\nclass Stored(tud.Dataset):\n    pass\n\n\nclass Cached(Stored):\n",
    "from torch.utils.data import IterableDataset\n\n\nclass Cached(IterableDataset):\n",
])
def test_a_dataset_whose_torch_base_is_in_another_module_is_not_flagged(project, base):
    files = {"train.py": TRAIN_DS, "corpora/frames.py": FRAMES,
             "corpora/__init__.py": "from .store import Cached\n",
             "corpora/store.py": base + "    def __init__(self, root):\n        self.root = root\n"}
    assert _codes(project, files) == []


def test_a_base_in_another_module_that_is_no_dataset_still_is(project):
    files = {"train.py": TRAIN_DS, "corpora/frames.py": FRAMES,
             "corpora/__init__.py": "from .store import Cached\n",
             "corpora/store.py": "import torch\n\n\nclass Cached:\n    def __init__(self, root):\n        self.root = root\n"}
    assert _codes(project, files) == ["DSL102"]


# -- the rank attribute a base class in another module sets ---------------------------------------------

SHARDS = """import os
import torch
from .base import Keeper


class ShardKeeper(Keeper):
    def restore(self, folder):
        where = os.path.join(folder, f"shard_{self.shard_rank}.bin")
        self.opt.load_state_dict(torch.load(where))
"""
TRAIN_KEEP = HEAD + """from keep.shards import ShardKeeper

net = torch.nn.Linear(4, 4).cuda()
ShardKeeper(torch.optim.SGD(net.parameters(), lr=0.1)).restore("ckpt")
"""


def _keeper(stored: str) -> str:
    return f"""import torch.distributed


class Keeper:
    def __init__(self, opt):
        self.opt = opt
        self.shard_rank = {stored}
"""


def test_a_rank_set_by_a_base_class_elsewhere_names_the_rank_s_own_file(project):
    files = {"train.py": TRAIN_KEEP, "keep/__init__.py": "", "keep/shards.py": SHARDS,
             "keep/base.py": _keeper("torch.distributed.get_rank()")}
    assert _codes(project, files) == []


@pytest.mark.parametrize("stored", ["0", "int(os.environ.get('SHARD', 0))"])
def test_an_attribute_set_to_anything_else_still_is(project, stored):
    files = {"train.py": TRAIN_KEEP, "keep/__init__.py": "", "keep/shards.py": SHARDS,
             "keep/base.py": "import os\n" + _keeper(stored)}
    assert _codes(project, files) == ["DSL102"]


def test_a_subclass_between_that_sets_it_otherwise_keeps_it(project):
    files = {"train.py": TRAIN_KEEP.replace("keep.shards import ShardKeeper", "keep.shards import Mid as ShardKeeper"),
             "keep/__init__.py": "",
             "keep/shards.py": SHARDS + "\n\nclass Mid(ShardKeeper):\n    def pin(self):\n        self.shard_rank = 0\n",
             "keep/base.py": _keeper("torch.distributed.get_rank()")}
    # (the load sits in ShardKeeper, whose lineage alone sets the rank: Mid's store is below it)
    assert _codes(project, files) == []
    files["keep/shards.py"] = SHARDS.replace("class ShardKeeper(Keeper):", "class ShardKeeper(Keeper):\n"
                                             "    def pin(self):\n        self.shard_rank = 0\n\n")
    assert _codes(project, files) == ["DSL102"]


# -- a file name another project script saves from the CPU ---------------------------------------------

PREP = """import sys
import torch

counts = torch.bincount(torch.tensor([len(line) for line in open(sys.argv[1])]))
torch.save({SAVED}, sys.argv[2] + "/lengths.th")
"""
TRAIN_LEN = HEAD + """import sys

stats = torch.load(os.path.join(sys.argv[1], "lengths.th"))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda())
"""


def test_a_file_name_another_script_saves_from_data_is_not_flagged(project):
    files = {"train.py": TRAIN_LEN, "tools/prep.py": PREP.replace("{SAVED}", "counts")}
    assert _codes(project, files) == []


def test_the_same_name_saved_from_model_state_somewhere_keeps_it(project):
    files = {"train.py": TRAIN_LEN, "tools/prep.py": PREP.replace("{SAVED}", "counts"),
             "tools/export.py": "import torch\nnet = torch.nn.Linear(2, 2).cuda()\ntorch.save(net.state_dict(), 'out/lengths.th')\n"}
    assert _codes(project, files) == ["DSL102"]


@pytest.mark.parametrize("path", ['f"{sys.argv[1]}/{split}_lengths.th"', 'sys.argv[1]'])
def test_a_name_that_is_not_literal_to_its_end_is_no_match(project, path):
    files = {"train.py": TRAIN_LEN.replace('os.path.join(sys.argv[1], "lengths.th")', path).replace(
        "import sys\n", "import sys\nsplit = 'train'\n"), "tools/prep.py": PREP.replace("{SAVED}", "counts")}
    assert _codes(project, files) == ["DSL102"]


# -- a path built by a call that is given the rank -------------------------------------------------------

def _given(keyword: str) -> str:
    return HEAD + f"""from shardio import expand

net = torch.nn.Linear(4, 4).cuda()
opt = torch.optim.Adam(net.parameters())
pg = dist.new_group()
target = expand(os.environ["CKPT_PATTERN"], {keyword})
if os.path.exists(target):
    opt.load_state_dict(torch.load(target))
torch.save(opt.state_dict(), target)
"""


def test_a_path_built_by_a_call_given_the_rank_and_saved_under_it_is_not_flagged(project):
    body = _given("rank=ctx.global_rank").replace("pg = dist.new_group()\n", "ctx = shardio.Context()\n").replace(
        "from shardio import expand", "import shardio\nfrom shardio import expand")
    assert _codes(project, {"train.py": body}) == []


@pytest.mark.parametrize("keyword", ["rank=0", "world=ctx.world_size", "rank=ctx.global_rank"])
def test_a_call_given_no_rank_or_a_name_never_saved_still_is(project, keyword):
    body = _given(keyword).replace("pg = dist.new_group()\n", "import shardio\nctx = shardio.Context()\n")
    if keyword == "rank=ctx.global_rank":  # given the rank, but saved elsewhere: not this rank's own file
        body = body.replace("torch.save(opt.state_dict(), target)", "torch.save(opt.state_dict(), 'last.pt')")
    assert _codes(project, {"train.py": body}) == ["DSL102"]


def test_a_save_of_a_parameter_elsewhere_proves_nothing_and_vetoes(project):
    # `blob` is whatever the caller passes: the same file name may hold model state
    files = {"train.py": TRAIN_LEN, "tools/prep.py": PREP.replace("{SAVED}", "counts"),
             "tools/dump.py": "import torch\n\n\ndef dump(blob):\n    torch.save(blob, 'out/lengths.th')\n"}
    assert _codes(project, files) == ["DSL102"]


def test_a_node_rank_names_no_rank_s_own_file(project):
    body = _given("rank=ctx.node_rank").replace("pg = dist.new_group()\n", "import shardio\nctx = shardio.Context()\n")
    assert _codes(project, {"train.py": body}) == ["DSL102"]
