"""A heterogeneous Slurm job's directives belong to its components, and an srun reads those of the
component its --het-group names (DSL701); a rendezvous address reaches a spawned worker through
mp.spawn's args (DSL703)."""
from __future__ import annotations

import pytest

from dslint.sources.launch import parse_launch_file

THREE_PARTS = """#!/bin/bash
#SBATCH -J pipeline -N 1 --ntasks-per-node=2
#SBATCH --cpus-per-task=4
#SBATCH packjob
#SBATCH -N 3 --ntasks-per-node=4 --gres=gpu:a100:4
#SBATCH hetjob
#SBATCH --nodes=1
torchrun --nnodes=$SLURM_NNODES_HET_GROUP_1 --nproc_per_node=4 train.py
"""


def test_hetjob_lines_split_the_directives_into_components():
    sbatch = parse_launch_file(THREE_PARTS).sbatch
    assert [c.nodes.value if c.nodes else None for c in sbatch.components] == ["1", "3", "1"]
    assert [c.ntasks_per_node.value if c.ntasks_per_node else None for c in sbatch.components] == ["2", "4", None]
    assert sbatch.components[1].gpus_per_node.count == 4
    assert sbatch.components[0].cpus_per_task.value == "4" and sbatch.components[1].cpus_per_task is None
    # the job name carries over to the later components; the job as a whole has no one node count
    assert [c.job_name.value for c in sbatch.components] == ["pipeline"] * 3
    assert sbatch.nodes is None and sbatch.ntasks_per_node is None
    assert len(sbatch.all) == 8


def test_component_variables_carry_the_het_group_suffix():
    command = parse_launch_file(THREE_PARTS).commands[0]
    assert command.nnodes == 3


@pytest.mark.parametrize("group, tasks", [
    ("", 2),  # no --het-group: component 0
    ("--het-group=1 ", 4),
    ("--pack-group 1 ", 4),
    ("--het-group=2 ", None),  # component 2 gives no tasks per node
    ("--het-group=0,1 ", None),  # one step over two components
    ("--het-group=1-2 ", None),
    ("--het-group=$G ", None),
    ("--het-group=5 ", None),  # no such component
])
def test_srun_reads_the_component_its_het_group_names(group, tasks):
    text = THREE_PARTS.replace("torchrun --nnodes=$SLURM_NNODES_HET_GROUP_1", f"srun {group}torchrun --nnodes=3")
    command = parse_launch_file(text).commands[0]
    assert command.srun.ntasks_per_node == tasks


def test_a_plain_job_keeps_its_directives_at_the_top():
    sbatch = parse_launch_file("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\nsrun torchrun train.py\n").sbatch
    assert sbatch.components == [] and sbatch.nodes.value == "2"


GPU_JOB = """#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH hetjob
#SBATCH --nodes=1
#SBATCH --ntasks-per-node={tasks}
#SBATCH --gpus-per-node=4

srun {group} python -m torch.distributed.run --nnodes=1 --nproc_per_node=4 fit.py
"""
FIT = "import torch.distributed as dist\n\ndist.init_process_group('nccl')\n"


@pytest.mark.parametrize("tasks, group, flagged", [
    (4, "--het-group=1", True),  # 4 torch.distributed.run launchers in the GPU component's node
    (1, "--het-group=1", False),
    (4, "", False),  # component 0: one task per node
    (4, "--het-group=0,1", False),
])
def test_dsl701_counts_the_tasks_of_the_srun_component(project, tasks, group, flagged):
    project.write({"fit.py": FIT, "job.slurm": GPU_JOB.format(tasks=tasks, group=group)})
    found = [f for f in project.check().findings if f.code == "DSL701"]
    assert bool(found) == flagged
    if flagged:
        assert found[0].span.start.row == 6  # the component's --ntasks-per-node


# -- DSL703: the rendezvous address a spawned worker receives --------------------------------------

WORKER = """import os

import torch.distributed as dist
import torch.multiprocessing as mp
{imports}

def run(rank, world, {param}):
    {body}


def main():
{setup}
    mp.spawn(run, args=(2, {passed}), nprocs=2)


if __name__ == "__main__":
    main()
"""
INIT = 'dist.init_process_group("gloo", init_method={url}, rank=rank, world_size=world)'


def _dsl703_rows(project, files: dict) -> list[int]:
    project.write(files)
    return [f.span.start.row for f in project.check().findings if f.code == "DSL703" and f.path.endswith("run.py")]


def _row(text: str) -> list[int]:
    """The row of the worker's init_method (or MASTER_PORT write)."""
    return [next(i for i, line in enumerate(text.split("\n"), 1)
                 if "init_method=" in line or 'os.environ["MASTER_PORT"]' in line)]


def _worker(imports="", param="url", body=INIT.format(url="url"), setup="    pass", passed="URL") -> str:
    return WORKER.format(imports=imports, param=param, body=body, setup=setup, passed=passed)


def test_a_url_passed_in_the_spawn_args_is_fixed(project):
    text = _worker(setup='    url = "tcp://127.0.0.1:29511"', passed="url")
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)


def test_a_port_passed_in_the_spawn_args_fills_the_url_fstring(project):
    text = _worker(param="port", body=INIT.format(url='f"tcp://{os.environ[\'HEAD\']}:{port}"'), passed="PORT")
    text = text.replace("\n\ndef run", "\nPORT = 29400\n\n\ndef run")
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)


def test_master_port_set_in_the_worker_from_its_argument(project):
    body = 'os.environ["MASTER_PORT"] = str(port)\n    dist.init_process_group("gloo", rank=rank, world_size=world)'
    text = _worker(param="port", body=body, passed="12400")
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)


def test_an_imported_constant_passed_to_the_worker(project):
    files = {"run.py": _worker(imports="from rendezvous import URL\n"),
             "rendezvous.py": 'URL = "tcp://10.1.2.3:31337"\n'}
    assert _dsl703_rows(project, files) == _row(files["run.py"])


def test_a_field_default_of_a_config_class_of_another_module(project):
    files = {"run.py": _worker(imports="from settings import Rendezvous\n", param="conf",
                               body=INIT.format(url="conf.address"), setup="    conf = Rendezvous(timeout=30)",
                               passed="conf"),
             "settings.py": "import dataclasses\n\n\n@dataclasses.dataclass\nclass Rendezvous:\n"
                            "    timeout: int = 60\n    address: str = dataclasses.field(default='tcp://localhost:40000')\n"}
    assert _dsl703_rows(project, files) == _row(files["run.py"])
    # the field is replaced before the spawn: not the default
    files["run.py"] = files["run.py"].replace("Rendezvous(timeout=30)",
                                              "Rendezvous(timeout=30)\n    conf.address = os.environ['URL']")
    assert _dsl703_rows(project, files) == []


@pytest.mark.parametrize("change", [
    # the worker is also called directly: another value may reach it
    ("    mp.spawn(", "    run(0, 1, os.environ['URL'])\n    mp.spawn("),
    # the value is a command-line option's default, which the launch line may change
    ("    pass", "    import argparse\n    p = argparse.ArgumentParser()\n"
               "    p.add_argument('--url', default='tcp://127.0.0.1:29511')\n    URL = p.parse_args().url"),
    # the worker's parameter takes its default, not an element of args
    ("def run(rank, world, url)", "def run(rank, world, other, url='env://')"),
    ("args=(2, URL)", "args=(2, *EXTRA, URL)"),
])
def test_unproven_spawn_arguments_say_nothing(project, change):
    text = _worker().replace("\n\ndef run", '\nURL = "tcp://127.0.0.1:29511"\nEXTRA = ()\n\n\ndef run')
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)
    assert change[0] in text
    assert _dsl703_rows(project, {"run.py": text.replace(*change)}) == []


def test_a_worker_another_module_imports_is_not_proven(project):
    text = _worker().replace("\n\ndef run", '\nURL = "tcp://127.0.0.1:29511"\n\n\ndef run')
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)
    other = "import os\n\nimport torch.multiprocessing as mp\n\nfrom run import run\n\nmp.spawn(run, args=(1, os.environ['URL']))\n"
    assert _dsl703_rows(project, {"bench.py": other}) == []


def test_a_literal_port_after_an_unknown_host(project):
    text = _worker(body=INIT.format(url='f"tcp://{os.environ[\'HEAD\']}:23456"'), passed="None")
    assert _dsl703_rows(project, {"run.py": text}) == _row(text)
