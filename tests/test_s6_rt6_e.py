"""Round-6 facts of the distributed family: spawned CPU workers are not ranks
(facts/spawn_targets.py, DSL108/DSL701)."""
from __future__ import annotations

import ast

from dslint.facts.script import build_script_facts
from dslint.facts.spawn_targets import spawn_starts_ranks

# -- spawned functions that make no rank: DSL108, DSL701 -----------------------------------------

SPAWNING = """import os

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

RANK = int(os.environ["LOCAL_RANK"])
HELPERS


def WORKER


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(RANK)
    jobs = mp.get_context("spawn").SimpleQueue()
    procs = mp.start_processes(augment, args=(jobs,), nprocs=3, join=False, start_method="spawn")
    batch = jobs.get()
    procs.join()


if __name__ == "__main__":
    main()
"""

CPU_WORKER = """augment(slot, jobs):
    rng = np.random.default_rng(slot)
    while True:
        jobs.put(torch.from_numpy(rng.normal(size=(8, 8))).to(torch.float32))"""


def _spawning(worker=CPU_WORKER, helpers=""):
    return SPAWNING.replace("WORKER", worker).replace("HELPERS", helpers)


def _check(project, script, codes=("DSL108", "DSL701"), extra=None):
    project.write({"run.sh": "torchrun --nproc_per_node 4 trainer.py\n", "trainer.py": script, **(extra or {})})
    return sorted((f.code, f.path, f.span.start.row) for f in project.check(select=list(codes)).findings
                  if f.code in codes)


def _starts_ranks(source: str):
    facts = build_script_facts("m.py", source, ast.parse(source))
    site = next(s for s in facts.calls if s.attr in ("spawn", "start_processes"))
    return spawn_starts_ranks(facts, site)


def test_cpu_workers_started_under_torchrun_are_no_second_world(project):
    assert _check(project, _spawning()) == []


def test_workers_that_select_a_gpu_through_a_helper_are_ranks(project):
    helpers = "\n\ndef _pin(slot):\n    torch.cuda.set_device(slot)\n"
    worker = CPU_WORKER.replace("    rng =", "    _pin(slot)\n    rng =")
    assert _check(project, _spawning(worker, helpers)) == [("DSL108", "trainer.py", 27), ("DSL701", "trainer.py", 27)]


def test_workers_calling_another_module_may_be_ranks(project):
    worker = CPU_WORKER.replace("    rng =", "    shards.open_shard(slot)\n    rng =")
    script = _spawning(worker).replace("import numpy as np\n", "import numpy as np\n\nimport shards\n")
    found = _check(project, script, extra={"shards.py": "def open_shard(i):\n    return i\n"})
    assert [code for code, _, _ in found] == ["DSL108", "DSL701"]


def test_spawn_target_rank_evidence():
    head = "import torch\nimport torch.multiprocessing as mp\nimport torch.distributed as dist\n"
    call = "\nmp.spawn(work, nprocs=2)\n"
    assert _starts_ranks(head + "def work(i, q=None):\n    q.put(i * 2)\n" + call) is False
    # a model moved to a device handed in, a group, a local class whose method starts one
    assert _starts_ranks(head + "def work(i, m):\n    m.to(i)\n" + call) is None
    assert _starts_ranks(head + "def work(i):\n    dist.init_process_group('gloo', rank=i, world_size=2)\n"
                         + call) is True
    assert _starts_ranks(head + "class Job:\n    def __init__(self, i):\n        self.i = i\n\n"
                         "    def run(self):\n        dist.barrier()\n\n"
                         "def work(i):\n    Job(i).run()\n" + call) is True
    # a function it was handed, a lambda target, an imported target: unknown
    assert _starts_ranks(head + "def work(i, fn):\n    fn(i)\n" + call) is None
    assert _starts_ranks(head + "mp.spawn(lambda i: None, nprocs=2)\n") is None
    assert _starts_ranks(head + "from .jobs import work\n" + call) is None
    assert _starts_ranks(head + "def work(i):\n    pass\n" + call) is None  # a stub proves nothing
    # a CPU tensor is no GPU use; a string naming CUDA is
    assert _starts_ranks(head + "def work(i):\n    torch.zeros(3, device='cpu').to('cpu')\n" + call) is False
    assert _starts_ranks(head + "def work(i):\n    torch.zeros(3, device='cuda:1')\n" + call) is True


HELPER_MODULE = """import torch.multiprocessing as mp


def _fill(slot, queue):
    for i in range(64):
        queue.put(i * slot)


def start_fillers(queue):
    return mp.spawn(_fill, args=(queue,), nprocs=2, join=False)
"""

ENTRY = """import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tools.fill import start_fillers


if __name__ == "__main__":
    dist.init_process_group("nccl")
    start_fillers(mp.Queue())
"""


def test_a_helper_spawning_cpu_workers_is_no_double_launch(project):
    extra = {"tools/__init__.py": "", "tools/fill.py": HELPER_MODULE}
    assert _check(project, ENTRY, extra=extra) == []
    ranked = HELPER_MODULE.replace("        queue.put(i * slot)", "        queue.put(torch.ones(1).cuda())")
    extra["tools/fill.py"] = "import torch\n" + ranked
    assert _check(project, ENTRY, extra=extra) == [("DSL701", "trainer.py", 10)]


# -- a loader factory of another module over a dataset split per rank: DSL301 -------------------

FACTORY = """import datasets.distributed as hfd
from datasets import load_dataset
from torch.utils.data import DataLoader


def make_loaders(rank, world, tokenize):
    raw = load_dataset("parquet", data_files="shards/*.parquet", split="train")
    mine = SPLIT
    mine = mine.map(tokenize, batched=True).with_format("torch")
    return DataLoader(mine, batch_size=32, shuffle=True), DataLoader(raw.select(range(64)), batch_size=8)
"""

TRAIN_WITH_FACTORY = """import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from pipeline import make_loaders


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % 8)
    model = DDP(torch.nn.Linear(4, 4).cuda())
    train, probe = make_loaders(dist.get_rank(), dist.get_world_size(), str.split)
    for epoch in range(3):
        for batch in train:
            model(batch["x"].cuda()).sum().backward()


if __name__ == "__main__":
    main()
"""


def _factory_findings(project, split):
    project.write({"run.sh": "torchrun --nproc_per_node 8 train.py\n", "train.py": TRAIN_WITH_FACTORY,
                   "pipeline/__init__.py": "from .loaders import make_loaders\n",
                   "pipeline/loaders.py": FACTORY.replace("SPLIT", split)})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL301"]).findings if f.code == "DSL301"]


def test_a_factory_loader_over_a_per_rank_split_needs_no_sampler(project):
    assert _factory_findings(project, "hfd.split_dataset_by_node(raw, rank=rank, world_size=world)") == []


def test_a_factory_loader_over_the_whole_dataset_keeps_the_finding(project):
    assert _factory_findings(project, "raw.shuffle(seed=rank)") == [("train.py", 12)]


# -- a sampler that may be None, a loader from a function of the module: DSL302 ------------------

SAMPLED = """import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, TensorDataset

BODY
"""

INLINE_OPTIONAL = """
def main():
    dist.init_process_group("gloo")
    ds = TensorDataset(torch.arange(64.0))
    picker = None if not dist.is_initialized() else DistributedSampler(ds)
    dl = DataLoader(ds, batch_size=4, sampler=picker)
    for ep in range(5):
        for (x,) in dl:
            x.sum()
"""

LOCAL_FACTORY = """
def build(ds):
    order = DistributedSampler(ds, seed=3)
    return DataLoader(ds, batch_size=4, sampler=order)


def main():
    dist.init_process_group("gloo")
    dl = build(TensorDataset(torch.arange(64.0)))
    for ep in range(5):
        for (x,) in dl:
            x.sum()
"""

TWO_SAMPLERS = """
def probe(ds):
    sampler = DistributedSampler(ds)
    return len(DataLoader(ds, sampler=sampler))


def main():
    dist.init_process_group("gloo")
    ds = TensorDataset(torch.arange(64.0))
    sampler = RandomSampler(ds)
    dl = DataLoader(ds, batch_size=4, sampler=sampler)
    for ep in range(5):
        for (x,) in dl:
            x.sum()
"""


def _set_epoch(project, body):
    project.write({"run.sh": "torchrun --nproc_per_node 2 train.py\n", "train.py": SAMPLED.replace("BODY", body)})
    return [(f.span.start.row, f.fix is not None) for f in project.check(select=["DSL302"]).findings
            if f.code == "DSL302"]


def test_a_sampler_that_is_none_when_not_distributed_still_needs_set_epoch(project):
    assert _set_epoch(project, INLINE_OPTIONAL) == [(9, False)]  # (no fix: None has no set_epoch)


def test_a_loader_a_function_of_the_module_returns_needs_set_epoch(project):
    assert _set_epoch(project, LOCAL_FACTORY) == [(7, True)]
    project.fix(select=["DSL302"])
    assert "        dl.sampler.set_epoch(ep)\n        for (x,) in dl:" in project.read("train.py")


def test_a_sampler_of_another_function_is_not_the_loop_loaders(project):
    assert _set_epoch(project, TWO_SAMPLERS) == []


# -- training through an alias of ddp.module: DSL304 ---------------------------------------------

ALIASED = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def run():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    ddp = DDP(torch.nn.Linear(8, 8).cuda(rank), device_ids=[rank])
    ALIAS
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for _ in range(10):
        USE
        opt.step()
"""


def _bypass_rows(project, alias, use):
    project.write({"train.py": ALIASED.replace("ALIAS", alias).replace("USE", use)})
    return [f.span.start.row for f in project.check(select=["DSL304"]).findings if f.code == "DSL304"]


def test_training_through_the_getattr_unwrap_skips_ddp(project):
    assert _bypass_rows(project, 'inner = getattr(ddp, "module", ddp)', "inner(torch.ones(2, 8)).sum().backward()") == [15]


def test_training_through_a_name_for_ddp_module_skips_ddp(project):
    assert _bypass_rows(project, "inner = ddp.module", "inner(torch.ones(2, 8)).sum().backward()") == [15]


def test_the_unwrap_kept_for_saving_is_no_bypass(project):
    assert _bypass_rows(project, "inner = ddp.module",
                        "ddp(torch.ones(2, 8)).sum().backward()\n        torch.save(inner.state_dict(), 'w.pt')") == []
    assert _bypass_rows(project, 'inner = getattr(ddp, "module", None)', "inner(torch.ones(2, 8)).sum().backward()") == []


# -- a helper handed the DeepSpeed engine: DSL308 -------------------------------------------------

DS_SCRIPT = """import deepspeed
import torch

HELPER
engine, opt, _, _ = deepspeed.initialize(model=torch.nn.Linear(8, 8), config="ds.json")
for batch in torch.ones(10, 2, 8):
    CALL
"""

PLAIN_STEP = """

def fit_batch(net, data, *, stepper):
    out = net(data).sum()
    out.backward()
    stepper.step()
"""


def _ds_findings(project, helper, call, extra=None):
    project.write({"train.py": DS_SCRIPT.replace("HELPER", helper).replace("CALL", call), "ds.json": "{}\n",
                   **(extra or {})})
    return [(f.path, f.span.start.row, f.fix is not None) for f in project.check(select=["DSL308"]).findings
            if f.code == "DSL308"]


def test_a_helper_of_the_module_training_the_engine_plainly_bypasses_it(project):
    found = _ds_findings(project, PLAIN_STEP, "fit_batch(engine, batch, stepper=opt)")
    assert [(row, fix) for _, row, fix in found] == [(8, True), (9, True)]


def test_a_helper_driving_the_engine_is_no_bypass(project):
    helper = PLAIN_STEP.replace("out.backward()", "net.backward(out)").replace("stepper.step()", "net.step()")
    assert _ds_findings(project, helper, "fit_batch(engine, batch, stepper=opt)") == []


def test_a_helper_of_another_module_is_decided_by_the_program(project):
    module = {"loops/__init__.py": "", "loops/core.py": PLAIN_STEP.lstrip()}
    found = _ds_findings(project, "from loops.core import fit_batch", "fit_batch(engine, batch, stepper=opt)", module)
    assert found == [("train.py", 7, False)]
    module["loops/core.py"] = "def fit_batch(net, data, *, stepper):\n    return net(data).sum().item()\n"
    assert _ds_findings(project, "from loops.core import fit_batch", "fit_batch(engine, batch, stepper=opt)",
                        module) == []


def test_a_local_factory_whose_callers_choose_the_shuffle_says_nothing(project):
    body = LOCAL_FACTORY.replace("def build(ds):", "def build(ds, train=True):").replace(
        "DistributedSampler(ds, seed=3)", "DistributedSampler(ds, shuffle=train)").replace(
        "build(TensorDataset(torch.arange(64.0)))", "build(TensorDataset(torch.arange(64.0)), train=False)")
    assert _set_epoch(project, body) == []


SHARE = """import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
IMPORT


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    model = DDP(torch.nn.Linear(4, 4).cuda(rank))
    DATA
    loader = DataLoader(data, batch_size=64, shuffle=True)
    for step in loader:
        model(step.float().cuda()).sum().backward()


if __name__ == "__main__":
    main()
"""


def _share_rows(project, data, extra_import=""):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n",
                   "train.py": SHARE.replace("DATA", data).replace("IMPORT", extra_import)})
    return [f.span.start.row for f in project.check(select=["DSL301"]).findings if f.code == "DSL301"]


def test_data_the_rank_indexes_out_is_its_share(project):
    assert _share_rows(project, "data = torch.arange(4096).chunk(world)[rank]") == []
    assert _share_rows(project, "data = torch.arange(4096)[rank::world]") == []
    assert _share_rows(project, "data = torch.arange(4096)") == [13]


def test_a_mosaic_streaming_dataset_partitions_itself(project):
    assert _share_rows(project, "data = StreamingDataset(local='/data/mds', shuffle=True, batch_size=64)",
                       "from streaming import StreamingDataset") == []
