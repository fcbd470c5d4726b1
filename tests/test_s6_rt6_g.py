"""Setup facts that reach the linker through helpers and command-line defaults: 16-bit saves in a helper
of another module, callable optimizers given to deepspeed.initialize, a Lightning num_nodes from an
option's default, a GPU index option whose default reads LOCAL_RANK."""
from __future__ import annotations

import pytest

# -- Lightning num_nodes from a command-line default ----------------------------------------------

FIT = """import argparse

import lightning.pytorch as pl
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--hosts", dest="hosts", type=int, default=1)
ap.add_argument("--per-host", type=int, default=4)
opts = ap.parse_args()


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 8)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


trainer = pl.Trainer(accelerator="gpu", devices=opts.per_host, num_nodes={nodes}, strategy="ddp")
trainer.fit(Model(), torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8))
"""

JOB = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4

srun python fit.py {args}
"""


def test_num_nodes_from_an_option_default_meets_the_slurm_nodes(project):
    project.write({"fit.py": FIT.format(nodes="opts.hosts"), "job.sbatch": JOB.format(args="")})
    assert project.codes().count("DSL702") == 1
    project.write({"job.sbatch": JOB.format(args="--hosts 2")})
    assert "DSL702" not in project.codes()
    project.write({"job.sbatch": JOB.format(args="--hosts=1")})
    assert "DSL702" in project.codes()
    project.write({"job.sbatch": JOB.format(args='"$@"')})
    assert "DSL702" not in project.codes()  # (the line may pass --hosts: unknown)


def test_num_nodes_computed_from_an_option_is_known_only_at_its_default(project):
    project.write({"fit.py": FIT.format(nodes="opts.hosts * 1"), "job.sbatch": JOB.format(args="")})
    assert "DSL702" in project.codes()
    project.write({"job.sbatch": JOB.format(args="--hosts 1")})
    assert "DSL702" not in project.codes()  # (computed from the value the line passes: not followed)


# -- a GPU index option whose default reads LOCAL_RANK, under srun ----------------------------------

WORKER = """import argparse
import os

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default={default})
cfg = parser.parse_args()

dist.init_process_group("nccl")
device_index = cfg.gpu
torch.cuda.set_device(device_index)
net = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda(), device_ids=[device_index])
"""

SUBMIT = """#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --gres=gpu:4

export MASTER_ADDR=localhost MASTER_PORT=29400
srun python worker.py {args}
"""


def test_an_option_default_reading_local_rank_counts_under_srun(project):
    project.write({"worker.py": WORKER.format(default='int(os.getenv("LOCAL_RANK", "0"))'),
                   "submit.sh": SUBMIT.format(args="")})
    found = [f for f in project.check().findings if f.code == "DSL704"]
    assert len(found) == 1 and found[0].span.start.row == 8  # the default's read
    project.write({"submit.sh": SUBMIT.format(args="--gpu $SLURM_LOCALID")})
    assert "DSL704" not in project.codes()
    project.write({"submit.sh": SUBMIT.format(args="$EXTRA")})
    assert "DSL704" not in project.codes()


def test_an_option_default_that_is_no_environment_read_is_not_dsl704(project):
    project.write({"worker.py": WORKER.format(default="0"), "submit.sh": SUBMIT.format(args="")})
    assert "DSL704" not in project.codes()


# -- callable optimizers given to deepspeed.initialize ---------------------------------------------

OFFLOAD = """{
  "train_micro_batch_size_per_gpu": 2,
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
  "zero_force_ds_cpu_optimizer": false
}
"""
ENGINE = """import argparse
import functools

import deepspeed
import torch
{imports}

p = argparse.ArgumentParser()
p.add_argument("--local_rank", type=int, default=-1)
p = deepspeed.add_config_arguments(p)
args = p.parse_args()
{defs}
net = torch.nn.Linear(16, 16)
engine, *_ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters(), optimizer={optimizer})
"""
LAUNCH = "deepspeed --num_gpus 2 engine.py --deepspeed --deepspeed_config offload.json\n"


def _engine(project, optimizer, imports="", defs="", **files):
    project.write({"offload.json": OFFLOAD, "run.sh": LAUNCH,
                   "engine.py": ENGINE.format(imports=imports, defs=defs, optimizer=optimizer), **files})
    return [f for f in project.check().findings if f.code == "DSL614"]


def test_a_partial_of_a_torch_optimizer_is_a_client_optimizer_without_the_rewrite(project):
    [found] = _engine(project, "functools.partial(torch.optim.Adam, lr=3e-4)")
    assert found.fix is None  # (DeepSpeedCPUAdam(torch.optim.Adam, ...) would be no fix)


def test_a_def_of_the_script_passed_uncalled_is_a_client_optimizer(project):
    defs = "\n\ndef sgd(params):\n    return torch.optim.SGD(params, lr=0.1, momentum=0.9)\n"
    [found] = _engine(project, "sgd", defs=defs)
    assert found.span.start.row == 15 and found.path.endswith("engine.py")


def test_a_def_of_the_script_returning_the_optimizer_is_a_client_optimizer(project):
    defs = ("\n\ndef make_optimizer(model, lr=1e-4):\n    groups = [{'params': model.parameters()}]\n"
            "    return torch.optim.AdamW(groups, lr=lr)\n")
    [found] = _engine(project, "make_optimizer(torch.nn.Linear(2, 2))", defs=defs)
    assert found.span.start.row == 16 and found.fix is not None


def test_a_def_returning_the_cpu_adam_is_no_client_torch_optimizer(project):
    defs = ("\n\ndef cpu_adam(params):\n    from deepspeed.ops.adam import DeepSpeedCPUAdam\n"
            "    return DeepSpeedCPUAdam(params, lr=1e-4)\n")
    assert _engine(project, "cpu_adam", defs=defs) == []
    assert _engine(project, "lambda ps: torch.optim.AdamW(ps) if args.local_rank < 0 else None") == []


def test_an_imported_builder_passed_uncalled_is_a_client_optimizer(project):
    helper = "import torch\n\n\ndef adam_for(params):\n    return torch.optim.Adam(params, lr=1e-3)\n"
    [found] = _engine(project, "adam_for", imports="from opt_utils import adam_for", **{"opt_utils.py": helper})
    assert found.path.endswith("opt_utils.py") and found.span.start.row == 5


def test_a_factory_of_a_package_module_returning_a_lambda_is_a_client_optimizer(project):
    helper = ("import torch\n\n\ndef sgd_factory(lr):\n    momentum = 0.9\n"
              "    return lambda params: torch.optim.SGD(params, lr=lr, momentum=momentum)\n")
    found = _engine(project, "hopt.sgd_factory(0.1)", imports="import helpers.optim as hopt",
                    **{"helpers/__init__.py": "", "helpers/optim.py": helper})
    assert [f.path.endswith("helpers/optim.py") and f.span.start.row for f in found] == [6]


def test_a_factory_returning_an_optimizer_or_a_builder_on_two_paths_is_unknown(project):
    helper = ("import torch\n\n\ndef build(lr, lazy):\n    if lazy:\n        return lambda ps: torch.optim.SGD(ps, lr=lr)\n"
              "    return torch.optim.SGD\n")
    assert _engine(project, "mk.build(0.1, True)", imports="import mk", **{"mk.py": helper}) == []


@pytest.mark.parametrize("optimizer", ["make_optimizer(net.parameters())", "make_optimizer"])
def test_a_module_level_partial_of_another_module_is_a_client_optimizer(project, optimizer):
    helper = "import functools\n\nimport torch\n\nmake_optimizer = functools.partial(torch.optim.AdamW, lr=1e-4)\n"
    found = _engine(project, optimizer, imports="from optim import make_optimizer", **{"optim.py": helper})
    assert [(f.path, f.span.start.row) for f in found] == [("optim.py", 5)]


def test_a_partial_rebound_in_its_module_is_unknown(project):
    helper = ("import functools\n\nimport torch\n\nmake_optimizer = functools.partial(torch.optim.AdamW)\n"
              "make_optimizer = None\n")
    assert _engine(project, "make_optimizer", imports="from optim import make_optimizer", **{"optim.py": helper}) == []


# -- 16-bit saves in a helper of another module -------------------------------------------------

ZERO3 = '{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3%s}}\n'
TRAIN = """import deepspeed
import torch

from utils.checkpointing import finalize

args = deepspeed.add_config_arguments(__import__("argparse").ArgumentParser()).parse_args()
net = torch.nn.Linear(32, 32)
engine = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())[0]
{call}
"""
HELPER = """import os


def finalize(out_dir, model_engine=None):
    os.makedirs(out_dir, exist_ok=True)
    if model_engine is not None:
        model_engine.save_16bit_model(out_dir)
"""


def _saves(project, call, gather=""):
    project.write({"train.py": TRAIN.format(call=call), "utils/__init__.py": "", "utils/checkpointing.py": HELPER,
                   "z3.json": ZERO3 % gather,
                   "launch.sh": "deepspeed --num_gpus 2 train.py --deepspeed_config z3.json\n"})
    return [f for f in project.check().findings if f.code == "DSL611"]


def test_a_helper_that_saves_the_engine_it_is_given_is_a_16bit_save(project):
    [found] = _saves(project, 'finalize("out", model_engine=engine)')
    assert "checkpointing.py:7" in found.message
    assert [r[0] for r in found.related] == ["utils/checkpointing.py"]


def test_a_helper_given_something_else_saves_no_engine(project):
    assert _saves(project, 'finalize("out", model_engine=net)') == []
    assert _saves(project, 'finalize(engine)') == []  # (the engine goes to out_dir)
    assert _saves(project, 'finalize("out", model_engine=engine)', ', "stage3_gather_16bit_weights_on_model_save": true') == []
