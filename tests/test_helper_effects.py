"""What a helper of another module does reaches the script that calls it: it spawns processes, starts
the process group, builds the Lightning Trainer, or touches CUDA when it is imported."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.script import build_script_facts


def _exports(source: str, path: str = "pkg/helpers.py"):
    return summarise_module(build_script_facts(path, source, ast.parse(source)))


def _found(project, code: str) -> list:
    return [f for f in project.check(select=[code]).findings if f.code == code]


# -- spawns: the facts ---------------------------------------------------------------------------

SPAWN_HELPER = """import torch.multiprocessing as mp


def _start(worker, count):
    mp.start_processes(worker, args=(count,), nprocs=count, start_method="spawn")


def run_workers(worker, count=2):
    _start(worker, count)


def run_if_alone(worker):
    if "LOCAL_RANK" in __import__("os").environ:
        return worker(0)
    mp.spawn(worker, nprocs=2)
"""


def test_a_spawn_reached_through_the_module_s_own_helper_is_in_the_summary():
    found = _exports(SPAWN_HELPER).functions["run_workers"].spawns
    assert found is not None
    what, span, nprocs, conditional = found
    assert (what, span.start.row, nprocs, conditional) == ("torch.multiprocessing.start_processes", 5, None, False)


def test_a_spawn_after_a_guarded_return_may_not_run():
    assert _exports(SPAWN_HELPER).functions["run_if_alone"].spawns[3] is True


# -- spawns: DSL701 ----------------------------------------------------------------------------

ENTRY_SPAWNING = """import torch.distributed as dist

from tools.procs import fan_out


def work(index):
    dist.init_process_group("nccl", rank=index, world_size=2)


if __name__ == "__main__":
    fan_out(work)
"""

PROCS = """import torch.multiprocessing as mp


def fan_out(fn):
    mp.spawn(fn, nprocs=2, join=True)
"""


def test_torchrun_over_a_script_whose_helper_spawns_is_a_double_launch(project):
    project.write({"job.sh": "torchrun --nproc_per_node 2 entry.py\n", "entry.py": ENTRY_SPAWNING,
                   "tools/__init__.py": "", "tools/procs.py": PROCS})
    found = _found(project, "DSL701")
    assert [(f.path, f.span.start.row) for f in found] == [("entry.py", 11)]
    assert "fan_out() calls spawn()" in found[0].message and "2 x 2 = 4" in found[0].message
    assert any(path == "tools/procs.py" and span.start.row == 5 for path, span, _ in found[0].related)


def test_plain_python_over_a_spawning_helper_is_no_double_launch(project):
    project.write({"job.sh": "python entry.py\n", "entry.py": ENTRY_SPAWNING,
                   "tools/__init__.py": "", "tools/procs.py": PROCS})
    assert _found(project, "DSL701") == []


def test_a_helper_call_under_a_launcher_test_is_no_double_launch(project):
    entry = ENTRY_SPAWNING.replace("    fan_out(work)", "    if 'LOCAL_RANK' not in os.environ:\n        fan_out(work)")
    project.write({"job.sh": "torchrun --nproc_per_node 2 entry.py\n", "entry.py": "import os\n" + entry,
                   "tools/__init__.py": "", "tools/procs.py": PROCS})
    assert _found(project, "DSL701") == []


# -- the process group: DSL104 ----------------------------------------------------------------

GROUP_HELPER = """import torch.distributed as dist


def join_world():
    dist.init_process_group(backend="nccl")
    return dist.get_rank()
"""

SHARDED = """import torch
from torch.distributed.fsdp import FullyShardedDataParallel

from comm import join_world


def build():
    rank = join_world()
    net = FullyShardedDataParallel(torch.nn.Linear(4, 4))
    return rank, net


if __name__ == "__main__":
    build()
"""


def test_the_group_a_helper_starts_is_in_its_summary():
    backend, span = _exports(GROUP_HELPER).functions["join_world"].starts_group
    assert (backend, span.start.row) == ("nccl", 5)
    assert _exports(GROUP_HELPER.replace('backend="nccl"', '"gloo"')).functions["join_world"].starts_group[0] == "other"
    assert _exports(GROUP_HELPER.replace('backend="nccl"', 'device_id=0')).functions["join_world"].starts_group is None


def test_fsdp_without_a_device_after_a_helper_starts_nccl_is_flagged_at_the_helper_call(project):
    project.write({"sharded.py": SHARDED, "comm.py": GROUP_HELPER})
    found = _found(project, "DSL104")
    assert [(f.path, f.span.start.row) for f in found] == [("sharded.py", 8)]
    assert "join_world()" in found[0].message
    assert any(path == "comm.py" and span.start.row == 5 for path, span, _ in found[0].related)


def test_a_helper_that_also_selects_the_gpu_is_fine(project):
    selecting = GROUP_HELPER.replace("    dist.init_process_group", "    import os, torch\n"
                                     "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
                                     "    dist.init_process_group")
    project.write({"sharded.py": SHARDED, "comm.py": selecting})
    assert _found(project, "DSL104") == []


def test_a_helper_that_pins_visible_devices_is_fine(project):
    pinning = GROUP_HELPER.replace("    dist.init_process_group", "    import os\n"
                                   "    os.environ['CUDA_VISIBLE_DEVICES'] = os.environ['LOCAL_RANK']\n"
                                   "    dist.init_process_group")
    project.write({"sharded.py": SHARDED, "comm.py": pinning})
    assert _found(project, "DSL104") == []


def test_a_gloo_group_in_a_helper_is_fine(project):
    project.write({"sharded.py": SHARDED, "comm.py": GROUP_HELPER.replace('backend="nccl"', 'backend="gloo"')})
    assert _found(project, "DSL104") == []


# -- a Trainer from a factory: DSL702 ------------------------------------------------------------

FACTORY = """import pytorch_lightning as pl


def trainer_for(max_epochs):
    trainer = pl.Trainer(accelerator="gpu", devices=4, num_nodes=1, max_epochs=max_epochs)
    return trainer
"""

FIT = """import pytorch_lightning as pl

from builders import trainer_for

trainer = trainer_for(3)
trainer.fit(pl.LightningModule())
"""

SBATCH = """#!/bin/bash
#SBATCH --nodes=3
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
srun python fit.py
"""


def test_the_returned_trainer_and_what_its_caller_chooses_are_in_the_summary():
    kind, span, chosen = _exports(FACTORY).functions["trainer_for"].returns_trainer
    assert (kind, span.start.row, chosen) == ("trainer", 5, ("max_epochs",))


def test_a_factory_trainer_s_nodes_are_compared_with_the_job(project):
    project.write({"run.sbatch": SBATCH, "fit.py": FIT, "builders.py": FACTORY})
    found = _found(project, "DSL702")
    assert [(f.path, f.span.start.row) for f in found] == [("builders.py", 5)]
    assert "num_nodes=1" in found[0].message and "3 nodes" in found[0].message
    assert ("fit.py", 5, "the Trainer comes from trainer_for()") in [(p, s.start.row, n) for p, s, n in found[0].related]


def test_nodes_the_caller_passes_to_the_factory_are_unknown(project):
    factory = FACTORY.replace("def trainer_for(max_epochs)", "def trainer_for(max_epochs, nodes=1)").replace(
        "num_nodes=1", "num_nodes=nodes")
    project.write({"run.sbatch": SBATCH, "fit.py": FIT.replace("trainer_for(3)", "trainer_for(3, nodes=3)"),
                   "builders.py": factory})
    assert _found(project, "DSL702") == []


def test_a_factory_trainer_that_agrees_with_the_job_is_fine(project):
    project.write({"run.sbatch": SBATCH, "fit.py": FIT, "builders.py": FACTORY.replace("num_nodes=1", "num_nodes=3")})
    assert _found(project, "DSL702") == []


# -- CUDA at import time: DSL105 ------------------------------------------------------------------

CONSTANTS = """import torch

SCALE = torch.ones(3).cuda()
"""

IMPORTER = """import os

import torch
import torch.distributed as dist

from stats.consts import SCALE


def run():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")


run()
"""


def test_a_module_creating_a_cuda_tensor_at_import_says_so():
    assert _exports(CONSTANTS).import_time_cuda == (3, ".cuda()")
    assert _exports("import torch\n\nif __name__ == '__main__':\n    torch.ones(1).cuda()\n").import_time_cuda is None


def test_importing_it_before_the_gpu_is_selected_is_flagged_at_the_import(project):
    project.write({"launch.sh": "torchrun --nproc_per_node 4 main.py\n", "main.py": IMPORTER,
                   "stats/__init__.py": "", "stats/consts.py": CONSTANTS})
    found = _found(project, "DSL105")
    assert [(f.path, f.span.start.row) for f in found] == [("main.py", 6)]
    assert any(path == "stats/consts.py" and span.start.row == 3 for path, span, _ in found[0].related)


def test_the_touch_is_found_through_a_module_the_import_loads(project):
    project.write({"launch.sh": "torchrun --nproc_per_node 4 main.py\n", "main.py": IMPORTER,
                   "stats/__init__.py": "", "stats/consts.py": "from stats.device_consts import SCALE\n",
                   "stats/device_consts.py": CONSTANTS})
    assert [f.span.start.row for f in _found(project, "DSL105")] == [6]


def test_an_import_after_the_gpu_is_selected_is_fine(project):
    importer = IMPORTER.replace("from stats.consts import SCALE\n", "").replace(
        "import torch.distributed as dist\n",
        "import torch.distributed as dist\n\ntorch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
        "from stats.consts import SCALE\n")
    project.write({"launch.sh": "torchrun --nproc_per_node 4 main.py\n", "main.py": importer,
                   "stats/__init__.py": "", "stats/consts.py": CONSTANTS})
    assert _found(project, "DSL105") == []


def test_a_single_process_program_is_fine(project):
    single = IMPORTER.replace('    dist.init_process_group("nccl")\n', "").replace(
        'int(os.environ["LOCAL_RANK"])', "int(os.sys.argv[1])")
    project.write({"launch.sh": "python main.py\n", "main.py": single,
                   "stats/__init__.py": "", "stats/consts.py": CONSTANTS})
    assert _found(project, "DSL105") == []


def test_a_module_without_import_time_cuda_is_fine(project):
    project.write({"launch.sh": "torchrun --nproc_per_node 4 main.py\n", "main.py": IMPORTER,
                   "stats/__init__.py": "", "stats/consts.py": "import torch\n\nSCALE = torch.ones(3)\n"})
    assert _found(project, "DSL105") == []


def test_the_factory_module_is_no_setup_of_its_own_once_a_script_takes_its_trainer(project):
    offloading = FACTORY.replace("max_epochs=max_epochs)", "max_epochs=max_epochs, strategy=\"deepspeed_stage_2_offload\")")
    project.write({"run.sbatch": SBATCH, "fit.py": FIT, "builders.py": offloading})
    found = [(f.code, f.path, f.span.start.row) for f in project.check().findings if f.code in ("DSL203", "DSL702")]
    assert sorted(found) == [("DSL203", "builders.py", 5), ("DSL702", "builders.py", 5)]


def test_a_spawning_helper_imported_under_another_name_is_found(project):
    entry = ENTRY_SPAWNING.replace("from tools.procs import fan_out", "from tools.procs import fan_out as start_all")
    project.write({"job.sh": "torchrun --nproc_per_node 2 entry.py\n",
                   "entry.py": entry.replace("    fan_out(work)", "    start_all(work)"),
                   "tools/__init__.py": "", "tools/procs.py": PROCS})
    assert [f.span.start.row for f in _found(project, "DSL701")] == [11]


def test_a_relatively_imported_function_is_a_project_call():
    """(relative imports bind no entry of the import table's `names`: they were never project calls)"""
    import ast

    from dslint.facts.program_effects import project_call
    from dslint.facts.script import build_script_facts

    text = "import os\nimport torch\nfrom .dist_utils import setup\nfrom utils import init\n\nsetup()\ninit()\n" \
           "torch.cuda.set_device(0)\nos.getcwd()\n"
    facts = build_script_facts("pkg/train.py", text, ast.parse(text))
    assert {site.attr: project_call(facts, site) for site in facts.calls} == {
        "setup": True, "init": True, "set_device": False, "getcwd": False}
