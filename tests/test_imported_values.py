"""Values another project module defines: a device or a rendezvous URL bound once as a module
constant and imported (maybe through a package that re-exports it), and a DeepSpeed config dict
re-exported by a package `__init__.py`."""
from __future__ import annotations

import pytest

PLACES_ON = """import torch
import torch.distributed as dist
{imports}

dist.init_process_group("nccl")
{body}
"""


def _trainer(imports: str, body: str) -> str:
    return PLACES_ON.format(imports=imports, body=body)


def test_an_imported_gpu_index_given_to_set_device_is_flagged_with_its_module(project):
    project.write({"settings.py": "GPU = 0\nBATCH = 32\n",
                   "train.py": _trainer("from settings import GPU", "torch.cuda.set_device(GPU)"),
                   "launch.sh": "torchrun --nproc_per_node=2 train.py\n"})
    found = [f for f in project.check().findings if f.code == "DSL101"]
    assert len(found) == 1 and "GPU of settings.py" in found[0].message


def test_one_process_launch_keeps_an_imported_device_quiet(project):
    project.write({"settings.py": "GPU = 0\n",
                   "train.py": _trainer("from settings import GPU", "torch.cuda.set_device(GPU)"),
                   "launch.sh": "torchrun --nproc_per_node=1 train.py\n"})
    assert "DSL101" not in project.codes()


def test_a_device_re_exported_through_two_packages_and_renamed_is_followed(project):
    project.write({"lib/__init__.py": "from .hw import TARGET\n",
                   "lib/hw/__init__.py": "from .consts import TARGET\n",
                   "lib/hw/consts.py": 'TARGET: str = "cuda:1"\n',
                   "main.py": _trainer("from lib import TARGET as dev",
                                       "where = dev\nnet = torch.nn.Linear(2, 2).to(torch.device(where))"),
                   "go.sh": "torchrun --nproc_per_node=4 main.py\n"})
    found = [f for f in project.check().findings if f.code == "DSL101"]
    assert len(found) == 1 and "'cuda:1'" in found[0].message and "TARGET" in found[0].message


@pytest.mark.parametrize("constants", [
    'DEVICE = "cuda:0"\nif __import__("os").environ.get("CPU"):\n    DEVICE = "cpu"\n',  # rebound in a branch
    'DEVICE = "cuda:0"\n\ndef pick(rank):\n    global DEVICE\n    DEVICE = f"cuda:{rank}"\n',  # set per rank
    'DEVICE = "cuda"\n',  # no index: set_device picks the GPU
    'DEVICE = 0\n',  # an int given to `.to(...)` through a name is cuda:0, but here it goes to `device=`
])
def test_an_imported_name_that_is_not_one_fixed_gpu_is_not_flagged(project, constants):
    project.write({"hw.py": constants,
                   "train.py": _trainer("from hw import DEVICE", "x = torch.zeros(3, device=DEVICE)"),
                   "run.sh": "torchrun --nproc_per_node=2 train.py\n"})
    assert "DSL101" not in project.codes()


def test_an_import_under_a_rank_condition_is_not_flagged(project):
    project.write({"hw.py": 'DEVICE = "cuda:0"\n',
                   "train.py": _trainer("import os", 'if int(os.environ["RANK"]) == 0:\n'
                                        "    from hw import DEVICE\n"
                                        "    x = torch.zeros(3, device=DEVICE)"),
                   "run.sh": "torchrun --nproc_per_node=2 train.py\n"})
    assert "DSL101" not in project.codes()


def test_a_library_name_given_to_to_is_no_device(project):
    project.write({"train.py": _trainer("from torch import float16", "net = torch.nn.Linear(2, 2).to(float16)"),
                   "run.sh": "torchrun --nproc_per_node=2 train.py\n"})
    assert "DSL101" not in project.codes()


SPAWNED = """import torch.distributed as dist
import torch.multiprocessing as mp
{head}

def run(rank):
    dist.init_process_group("nccl", init_method={url}, world_size=2, rank=rank)


if __name__ == "__main__":
    mp.spawn(run, nprocs=2)
"""


@pytest.mark.parametrize("head, url", [
    ('RENDEZVOUS = "tcp://localhost:29555"', "RENDEZVOUS"),
    ('HOST = "10.0.0.1"\nURL = f"tcp://{HOST}:29555"', "URL"),
    ('from dataclasses import dataclass\n\n\n@dataclass\nclass Dist:\n    url: str = "tcp://127.0.0.1:29555"\n',
     "Dist().url"),
])
def test_a_fixed_init_method_through_a_name_is_a_fixed_port(project, head, url):
    project.write({"job.py": SPAWNED.format(head=head, url=url)})
    found = [f for f in project.check().findings if f.code == "DSL703"]
    assert len(found) == 1 and "29555" in found[0].message


def test_an_init_method_from_the_command_line_is_not_a_fixed_port(project):
    head = ('import argparse\np = argparse.ArgumentParser()\np.add_argument("--url", default="tcp://127.0.0.1:29555")\n'
            "args = p.parse_args()")
    project.write({"job.py": SPAWNED.format(head=head, url="args.url")})
    assert "DSL703" not in project.codes()


HF_TRAIN = """from transformers import Trainer, TrainingArguments
{imports}

args = TrainingArguments(output_dir="o", lr_scheduler_type="cosine", deepspeed={name})
Trainer(model=None, args=args).train()
"""

WITH_SCHEDULER = ('STAGE2 = {"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2},\n'
                  '          "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}}\n')


def test_a_config_dict_re_exported_by_a_package_is_read(project):
    project.write({"recipes/__init__.py": "from .presets import STAGE2 as ZERO\n",
                   "recipes/presets.py": WITH_SCHEDULER,
                   "finetune.py": HF_TRAIN.format(imports="from recipes import ZERO", name="ZERO"),
                   "run.sh": "torchrun --nproc_per_node=2 finetune.py\n"})
    found = [f for f in project.check().findings if f.code == "DSL612"]
    assert len(found) == 1 and found[0].path.endswith("presets.py")


def test_a_re_export_of_a_name_no_module_defines_reads_nothing(project):
    project.write({"recipes/__init__.py": "from .presets import STAGE3 as ZERO\n",
                   "recipes/presets.py": WITH_SCHEDULER,
                   "finetune.py": HF_TRAIN.format(imports="from recipes import ZERO", name="ZERO"),
                   "run.sh": "torchrun --nproc_per_node=2 finetune.py\n"})
    assert "DSL612" not in project.codes()
