"""The data-parallel world of a pipeline-parallel program is not the launch's world (DSL610), and a
heterogeneous Slurm job's directives do not all describe one launch (DSL701)."""
from __future__ import annotations

import pytest

PIPE = """import deepspeed
import torch
{pipe_import}

{net}
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="pipe.json")
"""


@pytest.mark.parametrize("pipe_import, net, flagged", [
    ("from deepspeed.pipe import PipelineModule",
     "net = PipelineModule(layers=[torch.nn.Linear(8, 8) for _ in range(4)], num_stages=2)", False),
    ("", "net = torch.nn.Linear(8, 8)", True),
])
def test_dsl610_leaves_pipeline_programs_alone(project, pipe_import, net, flagged):
    # 64 = 4 x 4 x (8 / 2 stages): right for the pipeline; 4 x 4 x 8 = 128 for plain data parallelism
    project.write({"train.py": PIPE.format(pipe_import=pipe_import, net=net),
                   "pipe.json": '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, '
                                '"gradient_accumulation_steps": 4}\n',
                   "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert ("DSL610" in project.codes()) == flagged


HETJOB = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node={first}
#SBATCH --gres=gpu:8
{separator}
#SBATCH --nodes=1
#SBATCH --ntasks-per-node={second}
srun {group}torchrun --nnodes=2 --nproc_per_node=8 train.py
"""
TRAIN = "import torch.distributed as dist\n\ndist.init_process_group('nccl')\n"


def test_a_heterogeneous_job_tells_no_launch_its_tasks(project):
    project.write({"train.py": TRAIN, "job.sbatch": HETJOB.format(first=1, second=4, separator="#SBATCH hetjob",
                                                                  group="--het-group=0 ")})
    assert "DSL701" not in project.codes()
    # (one homogeneous job with 4 tasks per node, each running torchrun: DSL701)
    project.write({"job.sbatch": HETJOB.format(first=4, second=4, separator="", group="")})
    assert "DSL701" in project.codes()
