"""Slurm semantics in the launch layer: what srun starts, and what its tasks are given."""
from __future__ import annotations

from dslint.sources.launch import parse_launch_file

RESNET = """import os

import torch
import torch.distributed as dist


def setup():
    rank = int(os.environ["SLURM_PROCID"])
    local_rank = int(os.environ.get({key}, 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=int(os.environ["SLURM_NTASKS"]))


if __name__ == "__main__":
    setup()
"""
SBATCH = """#!/bin/bash
#SBATCH --job-name=resnet50-ddp
#SBATCH --nodes=2
#SBATCH --ntasks-per-node={tasks}
#SBATCH {gpus}
#SBATCH --cpus-per-task=8

export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
{line}
"""
ACCELERATE_JOB = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node={tasks}
#SBATCH --gres=gpu:8
#SBATCH --exclusive

LAUNCHER="accelerate launch \\
    --multi_gpu \\
    --num_machines $SLURM_NNODES \\
    --num_processes $((SLURM_NNODES * 8)) \\
    --machine_rank \\$SLURM_NODEID"

srun bash -c "$LAUNCHER sft.py --epochs 2"
"""
SFT = """from accelerate import Accelerator

accelerator = Accelerator()
"""


def _job(tasks=4, gpus="--gpus-per-node=4", line="srun python train.py"):
    return SBATCH.format(tasks=tasks, gpus=gpus, line=line)


def test_srun_tasks_that_read_local_rank_all_select_gpu_0(project):
    project.write({"train.sbatch": _job(), "train.py": RESNET.format(key='"LOCAL_RANK"')})
    findings = project.check().findings
    assert [(f.code, f.path, f.span.start.row) for f in findings] == [("DSL704", "train.py", 9)]
    assert findings[0].message.startswith("srun sets SLURM_LOCALID, not LOCAL_RANK, so all 4 tasks of a node select "
                                          "cuda:0")
    assert findings[0].related[0][0] == "train.sbatch"


FIELDS = """import os
from dataclasses import dataclass, field

import torch
import torch.distributed as dist


@dataclass
class RunConfig:
    local_rank: int = field(default_factory=lambda: int(os.environ.get({key}, 0)))


cfg = RunConfig({given})
torch.cuda.set_device(cfg.local_rank)
dist.init_process_group("nccl", rank=int(os.environ["SLURM_PROCID"]), world_size=int(os.environ["SLURM_NTASKS"]))
"""


def test_a_dataclass_default_factory_reading_local_rank_is_read_by_every_task(project):
    project.write({"train.sbatch": _job(), "train.py": FIELDS.format(key='"LOCAL_RANK"', given="")})
    assert [(f.code, f.path, f.span.start.row) for f in project.check().findings] == [("DSL704", "train.py", 10)]


def test_the_field_given_or_read_from_slurm_is_clean(project):
    project.write({"train.sbatch": _job(), "train.py": FIELDS.format(key='"SLURM_LOCALID"', given="")})
    assert project.codes() == []
    project.write({"train.py": FIELDS.format(key='"LOCAL_RANK"', given="local_rank=int(os.environ['SLURM_LOCALID'])")})
    assert project.codes() == []


def test_srun_tasks_reading_slurm_localid_are_clean(project):
    project.write({"train.sbatch": _job(), "train.py": RESNET.format(key='"SLURM_LOCALID"')})
    assert project.codes() == []


def test_per_task_gpus_make_cuda_0_right(project):
    project.write({"train.sbatch": _job(gpus="--gpus-per-task=1"), "train.py": RESNET.format(key='"LOCAL_RANK"')})
    assert project.codes() == []


def test_one_task_per_node_or_torchrun_under_srun_is_not_flagged(project):
    project.write({"a.sbatch": _job(tasks=1), "train.py": RESNET.format(key='"LOCAL_RANK"')})
    assert project.codes() == []
    project.write({"a.sbatch": _job(tasks=1, gpus="--gpus-per-node=4",
                                    line="srun torchrun --nnodes 2 --nproc_per_node 4 train.py")})
    assert project.codes() == []


def test_local_rank_exported_before_srun_is_not_flagged(project):
    project.write({"train.sbatch": _job(line="export LOCAL_RANK=0\nsrun python train.py"),
                   "train.py": RESNET.format(key='"LOCAL_RANK"')})
    assert project.codes() == []


def test_srun_bash_c_double_quoted_runs_accelerate_under_srun():
    launch = parse_launch_file(ACCELERATE_JOB.format(tasks=8), "job.slurm")
    inner = [c for c in launch.commands if c.script == "sft.py"]
    assert len(inner) == 1
    assert [lc.kind for lc in inner[0].launchers] == ["srun", "accelerate"]
    assert inner[0].span.start.row == 13  # the srun line
    assert inner[0].srun.ntasks_per_node == 8
    assert inner[0].launchers[1].options["machine_rank"].value is None  # $SLURM_NODEID: the task's, unknown here


def test_accelerate_launch_in_every_srun_task_is_a_double_launch(project):
    project.write({"job.slurm": ACCELERATE_JOB.format(tasks=8), "sft.py": SFT})
    findings = project.check().findings
    assert [(f.code, f.path, f.span.start.row) for f in findings] == [("DSL701", "job.slurm", 3)]
    assert findings[0].message.startswith("8 Slurm tasks per node each run accelerate launch, which starts 8 "
                                          "ranks, all as one --machine_rank")


def test_one_accelerate_launcher_per_node_is_clean(project):
    project.write({"job.slurm": ACCELERATE_JOB.format(tasks=1), "sft.py": SFT})
    assert project.codes() == []


def test_srun_torchrun_with_eight_tasks_per_node_is_a_double_launch(project):
    project.write({"a.sbatch": _job(tasks=8, gpus="--gpus-per-node=8",
                                    line="srun torchrun --nnodes 2 --nproc_per_node 8 train.py"),
                   "train.py": RESNET.format(key='"LOCAL_RANK"')})
    findings = project.check().findings
    assert [(f.code, f.path, f.span.start.row) for f in findings] == [("DSL701", "a.sbatch", 4)]


def test_one_process_per_srun_task_torchrun_is_clean(project):
    # torchrun per task with one process each and --nnodes over all tasks is a valid layout.
    project.write({"a.sbatch": _job(tasks=8, gpus="--gpus-per-node=8",
                                    line="srun torchrun --nnodes 16 --nproc_per_node 1 train.py"),
                   "train.py": RESNET.format(key='"SLURM_LOCALID"')})
    assert project.codes() == []


def test_loader_workers_from_a_config_class_against_the_cpus_of_the_one_slurm_task(project):
    """p11's shape: `srun torchrun` in one task per node with --cpus-per-task=32, 8 ranks, and
    num_workers from a dataclass default in another module (12 x 8 = 96 > 32)."""
    project.write({
        "job.sbatch": "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=32\n\n"
                      "srun torchrun --standalone --nproc_per_node=8 train.py\n",
        "exp/__init__.py": "",
        "exp/config.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n    num_workers: int = 12\n",
        "train.py": "import torch.distributed as dist\nfrom torch.utils.data import DataLoader, DistributedSampler\n\n"
                    "from exp.config import Config\n\n\ndef main(dataset):\n    cfg = Config()\n"
                    "    dist.init_process_group('nccl')\n"
                    "    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), num_workers=cfg.num_workers)\n"
                    "    for epoch in range(2):\n        loader.sampler.set_epoch(epoch)\n        for batch in loader:\n"
                    "            pass\n\n\nif __name__ == '__main__':\n    main(None)\n",
    })
    findings = [f for f in project.check().findings if f.code == "DSL204"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 10)]
    assert "96 workers for 32 cores" in findings[0].message
    project.write({"exp/config.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n    num_workers: int = 3\n"})
    assert "DSL204" not in project.codes()


P16_CONFIG = ('{"train_batch_size": 512, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 2,'
              ' "optimizer": {"type": "AdamW", "params": {"lr": 3e-4}},'
              ' "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}')
P16_SCRIPT = """import argparse

import deepspeed


def main(model):
    parser = argparse.ArgumentParser()
    parser.add_argument("--zero-stage", type=int, default=2)
    args = parser.parse_args()
    deepspeed.init_distributed()
    engine, *_ = deepspeed.initialize(model=model, model_parameters=[], config=f"configs/ds_zero{args.zero_stage}.json")


if __name__ == "__main__":
    main(None)
"""
P16_SBATCH = """#!/bin/bash
#SBATCH -N 3
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=96
#SBATCH --exclusive

export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK}
srun torchrun --nnodes "$SLURM_JOB_NUM_NODES" --nproc_per_node 8 pretrain.py{extra}
"""


def test_sbatch_environment_world_size_and_threads_per_rank(project):
    """p16's shape: the node count and CPUs come from #SBATCH through SLURM_* in the batch shell; the
    config path from an f-string over an argparse default."""
    project.write({"pretrain.py": P16_SCRIPT, "configs/ds_zero2.json": P16_CONFIG,
                   "pretrain.sbatch": P16_SBATCH.replace("{extra}", "")})
    found = sorted((f.code, f.path, f.span.start.row) for f in project.check().findings)
    assert found == [("DSL201", "pretrain.sbatch", 7), ("DSL610", "configs/ds_zero2.json", 1)]


def test_a_launch_that_passes_the_option_leaves_the_templated_config_unknown(project):
    project.write({"pretrain.py": P16_SCRIPT, "configs/ds_zero2.json": P16_CONFIG,
                   "pretrain.sbatch": P16_SBATCH.replace("{extra}", " --zero-stage 3")})
    assert "DSL610" not in project.codes()


FIXED = """import os

import torch
import torch.distributed as dist

torch.cuda.set_device(0)
dist.init_process_group("nccl", rank=int(os.environ["SLURM_PROCID"]), world_size=int(os.environ["SLURM_NTASKS"]))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda(), device_ids=[0])
"""


def test_cuda_0_is_each_tasks_own_gpu_when_slurm_gives_every_task_its_own(project):
    project.write({"train.sbatch": _job(gpus="--gpus-per-task=1"), "train.py": FIXED})
    assert "DSL101" not in project.codes()


def test_cuda_0_is_one_shared_gpu_when_the_tasks_share_the_nodes_gpus(project):
    project.write({"train.sbatch": _job(), "train.py": FIXED})
    assert "DSL101" in project.codes()


def test_the_gpus_sbatch_gives_the_batch_step_resolve_on_the_launch_line():
    text = "#!/bin/bash\n#SBATCH --gpus-per-node=8\n#SBATCH --nodes=1\ntorchrun --nproc_per_node \"$SLURM_GPUS_ON_NODE\" t.py\n"
    assert parse_launch_file(text, "job.sbatch").commands[0].nproc_per_node == 8
    typed = text.replace("--gpus-per-node=8", "--gpus-per-node=a100:8")
    assert parse_launch_file(typed, "job.sbatch").commands[0].nproc_per_node is None
