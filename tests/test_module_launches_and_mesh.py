"""Launch lines that start a module (`python -m pkg.train`, `torchrun -m`, `deepspeed --module`) are
linked to its file like a script path; a CUDA device mesh selects the rank's GPU."""
from __future__ import annotations

import pytest

SLURM_READS_LOCAL_RANK = """import os
import torch
import torch.distributed as dist

torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", rank=int(os.environ["SLURM_PROCID"]), world_size=int(os.environ["SLURM_NTASKS"]))
"""

ONE_RANK = """import torch
import torch.distributed as dist

dist.init_process_group("nccl")
torch.cuda.set_device(0)
state = torch.load("init.pt")
"""


@pytest.mark.parametrize("layout, launch", [
    ({"pkg/__init__.py": "", "pkg/train.py": SLURM_READS_LOCAL_RANK}, "srun python -m pkg.train\n"),
    ({"pkg/__init__.py": "", "pkg/__main__.py": SLURM_READS_LOCAL_RANK}, "srun python -m pkg\n"),
    ({"src/pkg/__init__.py": "", "src/pkg/train.py": SLURM_READS_LOCAL_RANK}, "PYTHONPATH=src srun python -m pkg.train\n"),
])
def test_a_module_launched_by_srun_is_linked(project, layout, launch):
    project.write({**layout, "job.sbatch": "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n"
                   "#SBATCH --gres=gpu:8\n" + launch})
    assert "DSL704" in project.codes()


def test_a_module_nobody_can_find_stays_unlinked(project):
    project.write({"pkg/__init__.py": "", "pkg/train.py": SLURM_READS_LOCAL_RANK,
                   "job.sbatch": "#!/bin/bash\n#SBATCH --ntasks-per-node=8\n#SBATCH --gres=gpu:8\n"
                                 "srun python -m other.train\n"})
    assert "DSL704" not in project.codes()


def test_a_one_process_module_launch_is_one_process(project):
    project.write({"pkg/__init__.py": "", "pkg/train.py": ONE_RANK,
                   "run.sh": "torchrun --nproc_per_node=1 -m pkg.train\n"})
    codes = project.codes()
    assert "DSL101" not in codes and "DSL102" not in codes
    project.write({"run.sh": "torchrun --nproc_per_node=4 -m pkg.train\n"})
    codes = project.codes()
    assert "DSL101" in codes and "DSL102" in codes


def test_deepspeed_module_launch_reads_its_world(project):
    project.write({"pkg/__init__.py": "",
                   "pkg/pretrain.py": "import deepspeed\nimport torch\n\nmodel = torch.nn.Linear(4, 4)\n"
                                      "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),"
                                      " config='ds.json')\n",
                   "ds.json": '{"train_micro_batch_size_per_gpu": 1, "optimizer": {"type": "Adam", "params": {}}, '
                              '"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}\n',
                   "launch.sh": "deepspeed --num_gpus 8 --module pkg.pretrain --deepspeed_config ds.json\n"})
    assert "DSL201" in project.codes()


MESH = """import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

dist.init_process_group("nccl")
{before}mesh = init_device_mesh("{device}", (dist.get_world_size(),))
x = torch.ones(4, device="cuda")
dist.all_reduce(x)
"""


def test_a_cuda_device_mesh_selects_the_gpu(project):
    project.write({"train.py": MESH.format(before="", device="cuda"), "run.sh": "torchrun --nproc_per_node=8 train.py\n"})
    assert "DSL104" not in project.codes()


def test_a_cpu_mesh_selects_no_gpu(project):
    project.write({"train.py": MESH.format(before="", device="cpu"), "run.sh": "torchrun --nproc_per_node=8 train.py\n"})
    assert "DSL104" in project.codes()
    # (a CUDA mesh built after a CUDA touch keeps cuda:0 current and selects nothing; dslint takes
    # every CUDA mesh for a selection, so that case is a miss, never a false finding)


HF_SUBCLASS = """from transformers import Trainer, TrainingArguments


class MyTrainer({base}):
    pass


args = TrainingArguments(output_dir="out", lr_scheduler_type="cosine", deepspeed="ds.json")
MyTrainer(model=None, args=args).train()
"""


@pytest.mark.parametrize("base", ["Trainer", "Trainer):\n    pass\n\n\nclass Mine(Trainer"])
def test_a_subclass_of_the_hf_trainer_is_the_hf_trainer(project, base):
    project.write({"train.py": HF_SUBCLASS.format(base=base),
                   "ds.json": '{"train_micro_batch_size_per_gpu": "auto", "scheduler": {"type": "WarmupDecayLR", '
                              '"params": {}}}\n',
                   "run.sh": "torchrun --nproc_per_node=2 train.py\n"})
    assert "DSL612" in project.codes()


AUTOTUNED_TRAIN = """import deepspeed
import torch

model = torch.nn.Linear(4, 4)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
"""


@pytest.mark.parametrize("auto_key, launch, flagged", [
    ("train_micro_batch_size_per_gpu", "deepspeed --autotuning run --num_gpus 8 train.py", False),
    ("train_micro_batch_size_per_gpu", "deepspeed --num_gpus 8 train.py", True),
    ("gradient_accumulation_steps", "deepspeed --autotuning run --num_gpus 8 train.py", True),  # (not filled)
])
def test_the_autotuner_fills_the_batch_sizes(project, auto_key, launch, flagged):
    other = "gradient_accumulation_steps" if auto_key != "gradient_accumulation_steps" else "train_micro_batch_size_per_gpu"
    project.write({"train.py": AUTOTUNED_TRAIN, "launch.sh": launch + "\n",
                   "ds.json": f'{{"{auto_key}": "auto", "{other}": 1, "optimizer": {{"type": "AdamW", "params": '
                              '{"lr": 0.0001}}, "autotuning": {"enabled": true}}\n'})
    assert ("DSL604" in project.codes()) == flagged
