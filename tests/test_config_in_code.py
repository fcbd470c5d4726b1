"""DeepSpeed configs written in Python (a dict in the script, a module constant, a project function that
returns one), Slurm's --ntasks with --nodes and a helper that selects the device, and the offload
strategy of a LightningCLI YAML."""
from __future__ import annotations

import os
from pathlib import Path

from dslint import engine
from dslint.facts.config_dicts import NotLiteral
from dslint.facts.link import link_setups
from dslint.settings import Settings


def _setups(root: Path, files: dict):
    """The linked setups of a project, read from its folder as `dslint check .` does."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    values = Settings.model_validate({})
    old = os.getcwd()
    os.chdir(root)
    try:
        project = engine.check(["."], values, root=root, use_cache=False).project
        return link_setups(project, values)
    finally:
        os.chdir(old)


def _where(findings, code: str) -> list:
    return [(f.path, f.span.start.row) for f in findings if f.code == code]


# -- a dict in the script: DSL610 at its key -------------------------------------------------------------

PRETRAIN = """import deepspeed
import torch

from model import build_model

CONFIG = {{
    "train_batch_size": {tbs},
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 2,
    "bf16": {{"enabled": True}},
}}


def main():
    net = build_model()
    engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=CONFIG)


if __name__ == "__main__":
    main()
"""
MODEL = "import torch\n\n\ndef build_model():\n    return torch.nn.Linear(4, 4)\n"
TORCHRUN = "torchrun --nproc_per_node=8 pretrain.py\n"


def test_batch_arithmetic_of_a_dict_in_the_script_is_reported_at_its_key(project):
    project.write({"pretrain.py": PRETRAIN.format(tbs=64), "model.py": MODEL, "launch.sh": TORCHRUN})
    findings = project.check().findings
    assert _where(findings, "DSL610") == [("pretrain.py", 7)]
    [finding] = [f for f in findings if f.code == "DSL610"]
    assert finding.message.startswith("train_batch_size 64 != 8 x 2 x 8 = 128")
    assert (finding.span.start.column, finding.span.end.column) == (5, 27)  # `"train_batch_size": 64`


def test_a_dict_whose_arithmetic_holds_is_not_reported(project):
    project.write({"pretrain.py": PRETRAIN.format(tbs=128), "model.py": MODEL, "launch.sh": TORCHRUN})
    assert "DSL610" not in project.codes()


def test_a_key_the_script_assigns_later_is_unknown_not_the_literal(project):
    later = PRETRAIN.format(tbs=64).replace("def main():", "CONFIG[\"train_batch_size\"] = 16 * 8\n\n\ndef main():")
    project.write({"pretrain.py": later, "model.py": MODEL, "launch.sh": TORCHRUN})
    assert "DSL610" not in project.codes()


def test_a_dict_changed_through_update_with_a_literal_has_the_updated_value(tmp_path):
    changed = PRETRAIN.format(tbs=64).replace("def main():", "CONFIG.update(train_batch_size=128)\n\n\ndef main():")
    [setup] = _setups(tmp_path, {"pretrain.py": changed, "model.py": MODEL, "launch.sh": TORCHRUN})
    assert setup.config.value["train_batch_size"] == 128


def test_a_dict_changed_through_update_with_a_non_literal_is_unknown(tmp_path):
    changed = PRETRAIN.format(tbs=64).replace("def main():", "CONFIG.update(OVERRIDES)\n\n\ndef main():")
    changed = changed.replace("CONFIG = {", "OVERRIDES = dict(train_batch_size=128)\nCONFIG = {")
    [setup] = _setups(tmp_path, {"pretrain.py": changed, "model.py": MODEL, "launch.sh": TORCHRUN})
    assert setup.config.value is None


# -- a function of another module returns it ---------------------------------------------------------------

BUILDERS = """def zero_config(micro, accumulation=1, stage=3, offload="none"):
    config = {
        "train_batch_size": 96,
        "train_micro_batch_size_per_gpu": micro,
        "gradient_accumulation_steps": accumulation,
        "zero_optimization": {"stage": stage, "offload_optimizer": {"device": offload}},
    }
    return config
"""
RM_TRAIN = """import argparse

import deepspeed
import torch

from cfg.builders import zero_config

parser = argparse.ArgumentParser()
parser.add_argument("--micro", type=int, default=4)
args = parser.parse_args()
net = torch.nn.Linear(4, 4)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=zero_config({micro}))
if engine.global_rank == 0:
    torch.save(engine.module.state_dict(), "rm.pt")
"""
DEEPSPEED = "deepspeed --num_gpus 4 rm_train.py\n"


def test_a_config_function_of_another_module_is_evaluated_with_the_call_and_its_defaults(tmp_path):
    [setup] = _setups(tmp_path, {"cfg/__init__.py": "", "cfg/builders.py": BUILDERS,
                                 "rm_train.py": RM_TRAIN.format(micro="args.micro"), "run.sh": DEEPSPEED})
    value = setup.config.value
    assert value["zero_optimization"] == {"stage": 3, "offload_optimizer": {"device": "none"}}
    assert value["gradient_accumulation_steps"] == 1
    # a parameter given a command-line option: present, with a value the files do not show
    assert value["train_micro_batch_size_per_gpu"] == NotLiteral("args.micro")
    assert setup.config.key_path == "cfg/builders.py"
    assert setup.config.key_spans[("zero_optimization", "stage")].start.row == 6


def test_zero3_from_a_config_function_reaches_the_zero3_rules(project):
    project.write({"cfg/__init__.py": "", "cfg/builders.py": BUILDERS, "rm_train.py": RM_TRAIN.format(micro="args.micro"),
                   "run.sh": DEEPSPEED})
    assert _where(project.check().findings, "DSL503") == [("rm_train.py", 14)]


def test_an_unknown_micro_batch_is_no_batch_mismatch_and_a_literal_one_is(project):
    files = {"cfg/__init__.py": "", "cfg/builders.py": BUILDERS, "run.sh": DEEPSPEED}
    project.write({**files, "rm_train.py": RM_TRAIN.format(micro="args.micro")})
    assert "DSL610" not in project.codes()
    project.write({"rm_train.py": RM_TRAIN.format(micro="5")})
    findings = project.check().findings
    assert _where(findings, "DSL610") == [("cfg/builders.py", 3)]
    [finding] = [f for f in findings if f.code == "DSL610"]
    assert finding.message.startswith("train_batch_size 96 != 5 x 1 x 4 = 20")
    assert ("rm_train.py", 12) in [(path, span.start.row) for path, span, _ in finding.related]


def test_a_builder_that_changes_its_dict_before_returning_it_is_unknown(tmp_path):
    changed = BUILDERS.replace("    return config", "    config[\"train_batch_size\"] = micro * 4\n    return config")
    [setup] = _setups(tmp_path, {"cfg/__init__.py": "", "cfg/builders.py": changed,
                                 "rm_train.py": RM_TRAIN.format(micro="5"), "run.sh": DEEPSPEED})
    assert setup.config.value is None
    assert "does not return a dict" in setup.notes["config"]


def test_a_call_that_does_not_bind_its_parameters_gives_no_config(tmp_path):
    [setup] = _setups(tmp_path, {"cfg/__init__.py": "", "cfg/builders.py": BUILDERS,
                                 "rm_train.py": RM_TRAIN.format(micro="micro=4, mikro=2"), "run.sh": DEEPSPEED})
    assert setup.config.value is None


def test_an_imported_module_constant_is_the_config(project):
    constant = "ZERO = {\n    \"train_batch_size\": 30,\n    \"train_micro_batch_size_per_gpu\": 4,\n}\n"
    script = RM_TRAIN.replace("from cfg.builders import zero_config", "from cfg.presets import ZERO").replace(
        "config=zero_config({micro})", "config=ZERO")
    project.write({"cfg/__init__.py": "", "cfg/presets.py": constant, "rm_train.py": script, "run.sh": DEEPSPEED})
    findings = project.check().findings
    assert _where(findings, "DSL610") == [("cfg/presets.py", 2)]
    assert "DSL503" not in [f.code for f in findings]  # no zero_optimization: stage 0


# -- Slurm: --ntasks with --nodes, and the device selected in a helper ---------------------------------------

JOB = """#!/bin/bash
#SBATCH --nodes={nodes}
#SBATCH --ntasks={tasks}
#SBATCH --gpus-per-node=4

srun python fit.py
"""
FIT = """from dist_utils import setup_distributed


def main():
    rank, local_rank = setup_distributed()


if __name__ == "__main__":
    main()
"""
DIST_UTILS = """import os

import torch
import torch.distributed as dist


def setup_distributed():
    rank = int(os.environ["SLURM_PROCID"])
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=int(os.environ["SLURM_NTASKS"]))
    return rank, local_rank
"""


def test_ntasks_over_nodes_is_a_lower_bound_on_the_tasks_of_some_node(tmp_path):
    [setup] = _setups(tmp_path, {"job.sbatch": JOB.format(nodes=2, tasks=7), "fit.py": FIT,
                                 "dist_utils.py": DIST_UTILS})
    assert (setup.slurm_tasks_per_node, setup.slurm_tasks_on_a_node, setup.world_size) == (None, 4, 7)


def test_srun_tasks_that_take_the_gpu_from_a_helper_reading_local_rank(project):
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "fit.py": FIT, "dist_utils.py": DIST_UTILS})
    findings = project.check().findings
    assert _where(findings, "DSL704") == [("dist_utils.py", 9)]
    assert "so at least 4 tasks of a node select cuda:0" in findings[0].message


def test_one_task_per_node_or_a_helper_that_sets_local_rank_is_fine(project):
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=2), "fit.py": FIT, "dist_utils.py": DIST_UTILS})
    assert "DSL704" not in project.codes()
    sets = DIST_UTILS.replace('    rank = int(', '    os.environ["LOCAL_RANK"] = os.environ["SLURM_LOCALID"]\n    rank = int(')
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "dist_utils.py": sets})
    assert "DSL704" not in project.codes()


def test_a_helper_the_script_never_calls_is_not_its_device(project):
    unused = FIT.replace("    rank, local_rank = setup_distributed()", "    print(setup_distributed)")
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "fit.py": unused, "dist_utils.py": DIST_UTILS})
    assert "DSL704" not in project.codes()


# -- LightningCLI YAML offload strategy: DSL203 in the YAML ---------------------------------------------------

CLI = """from lightning.pytorch.cli import LightningCLI

from lit import Net

if __name__ == "__main__":
    LightningCLI(Net)
"""
LIT = """import lightning.pytorch as pl
import torch


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)
"""


def test_an_offload_strategy_string_in_the_cli_yaml_is_reported_there(project):
    yaml = "trainer:\n  devices: 4\n  strategy: deepspeed_stage_3_offload\n"
    project.write({"cli.py": CLI, "lit.py": LIT, "conf/fit.yaml": yaml,
                   "train.sh": "python cli.py fit --config conf/fit.yaml\n"})
    findings = project.check().findings
    assert _where(findings, "DSL203") == [("conf/fit.yaml", 3)]


def test_a_deepspeed_strategy_class_in_the_cli_yaml(project):
    unpinned = ("trainer:\n  devices: 4\n  strategy:\n    class_path: lightning.pytorch.strategies.DeepSpeedStrategy\n"
                "    init_args:\n      stage: 2\n      offload_optimizer: true\n")
    project.write({"cli.py": CLI, "lit.py": LIT, "conf/fit.yaml": unpinned,
                   "train.sh": "python cli.py fit --config conf/fit.yaml\n"})
    assert _where(project.check().findings, "DSL203") == [("conf/fit.yaml", 7)]
    project.write({"conf/fit.yaml": unpinned + "      pin_memory: true\n"})
    assert "DSL203" not in project.codes()
    project.write({"conf/fit.yaml": "trainer:\n  devices: 4\n  strategy: deepspeed_stage_2\n"})
    assert "DSL203" not in project.codes()


RUNTIME = """import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Runtime:
    rank: int = field(default_factory=lambda: int(os.environ.get("RANK", os.environ.get("SLURM_PROCID", 0))))
    local_rank: int = field(default_factory=lambda: int(os.environ.get(KEY, 0)))
"""
FIT_RUNTIME = """import torch
import torch.distributed as dist

from runtime import Runtime

rt = Runtime(ARGS)
torch.cuda.set_device(rt.local_rank)
dist.init_process_group("nccl", rank=rt.rank)
"""


def test_srun_tasks_that_take_the_gpu_from_a_dataclass_field_of_another_module(project):
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "runtime.py": RUNTIME.replace("KEY", '"LOCAL_RANK"'),
                   "fit.py": FIT_RUNTIME.replace("ARGS", "")})
    assert _where(project.check().findings, "DSL704") == [("runtime.py", 8)]


def test_a_dataclass_field_read_from_slurm_or_given_to_the_constructor_is_fine(project):
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "runtime.py": RUNTIME.replace("KEY", '"SLURM_LOCALID"'),
                   "fit.py": FIT_RUNTIME.replace("ARGS", "")})
    assert "DSL704" not in project.codes()
    project.write({"runtime.py": RUNTIME.replace("KEY", '"LOCAL_RANK"'),
                   "fit.py": FIT_RUNTIME.replace("ARGS", "local_rank=int(os.environ['SLURM_LOCALID'])")})
    assert "DSL704" not in project.codes()


HELPER_NS = """import os

import torch
import torch.distributed as dist


def init_distributed(args):
    args.rank = int(os.environ["SLURM_PROCID"])
    SET
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group("nccl", rank=args.rank, world_size=int(os.environ["SLURM_NTASKS"]))
"""
FIT_NS = """import argparse
import os

from helpers import init_distributed

p = argparse.ArgumentParser()
p.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
args = p.parse_args()
init_distributed(args)
"""


def test_srun_tasks_whose_helper_takes_the_gpu_from_the_namespace_option_reading_local_rank(project):
    project.write({"job.sbatch": JOB.format(nodes=2, tasks=8), "fit.py": FIT_NS,
                   "helpers.py": HELPER_NS.replace("SET", "pass")})
    assert _where(project.check().findings, "DSL704") == [("fit.py", 7)]
    project.write({"helpers.py": HELPER_NS.replace("SET", "args.local_rank = int(os.environ['SLURM_LOCALID'])")})
    assert "DSL704" not in project.codes()
    project.write({"helpers.py": HELPER_NS.replace("SET", "pass"),
                   "job.sbatch": JOB.format(nodes=2, tasks=8).replace("fit.py", "fit.py --local_rank $SLURM_LOCALID")})
    assert "DSL704" not in project.codes()
