"""Container and CPU-binding wrappers between a launcher and the program its tasks run."""
from __future__ import annotations

import pytest

from dslint.sources.launch import parse_launch_file

TRAIN = ("import torch\nimport torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
         "dist.init_process_group('nccl', init_method='env://')\ntorch.cuda.set_device(0)\n"
         "model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[0])\n")


@pytest.mark.parametrize("wrapper", [
    "shifter --image=docker:nersc/pytorch:24.06",
    "shifter --image nersc/pytorch:24.06 --module gpu",
    "singularity exec --nv -B /data:/data pytorch.sif",
    "apptainer exec --nv --cleanenv pytorch.sif",
    "enroot start --mount /data:/data pytorch",
    "numactl --cpunodebind=0 -m 0",
    "taskset -c 0-7",
])
def test_a_wrapper_under_srun_runs_the_script_in_each_task(wrapper):
    [command] = parse_launch_file(f"srun -N 2 --ntasks-per-node 4 {wrapper} python train.py --lr 1e-4\n").commands
    assert (command.script, [a.value for a in command.script_args]) == ("train.py", ["--lr", "1e-4"])
    assert [launcher.kind for launcher in command.launchers][0] == "srun"
    assert command.world_size == 8


def test_singularity_run_is_no_wrapper_of_a_command():
    # (`singularity run IMAGE args` runs the image's own runscript: its words are arguments)
    [command] = parse_launch_file("srun -n 4 singularity run pytorch.sif python train.py\n").commands
    assert command.script == "singularity"


def test_bash_c_under_a_wrapper_under_srun_is_run_by_every_task(project):
    project.write({"train.py": TRAIN, "run.sh": 'srun -n 4 shifter --image=x bash -c "python train.py"\n'})
    assert [f.code for f in project.check(select=["DSL101"]).findings] == ["DSL101", "DSL101"]


def test_bash_c_under_a_program_dslint_cannot_read_is_not_one_process(project):
    # (before: the inner `python train.py` read as a launch of one process, which silenced DSL101)
    project.write({"train.py": TRAIN, "run.sh": 'srun -n 4 sometool --flag bash -c "python train.py"\n'})
    assert [f.code for f in project.check(select=["DSL101"]).findings] == ["DSL101", "DSL101"]


def test_a_plain_python_launch_is_still_one_process(project):
    project.write({"train.py": TRAIN, "run.sh": "python train.py\n"})
    assert project.check(select=["DSL101"]).findings == []
