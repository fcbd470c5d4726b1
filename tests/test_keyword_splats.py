"""`**X` in a strategy/plugin constructor, X a dict known by value (facts/keyword_splats.py), and the defaults
of a `fire.Fire(fn)` function as command-line defaults (facts/values.py)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dslint import engine
from dslint.settings import Settings


def _check(tmp_path: Path, files: dict, code: str) -> list:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    findings = engine.check([str(tmp_path)], Settings.model_validate({}), root=tmp_path, use_cache=False).findings
    return [(Path(f.path).name, f.span.start.row) for f in findings if f.code == code]


# -- the fact ----------------------------------------------------------------------------------
def _keywords(source: str):
    from dslint.facts.bindings import semantic_model
    from dslint.facts.keyword_splats import call_keywords, module_constant
    from dslint.facts.script import build_script_facts
    from dslint.facts.values import UNKNOWN

    tree = ast.parse(source)
    facts = build_script_facts("m.py", source, tree)
    model = semantic_model(facts)
    call = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "make"][-1]
    return call_keywords(model, call, module_constant(model), UNKNOWN, facts.lines.span_of_node)


def test_dict_display_merges_let_later_keys_win():
    values, _, is_open = _keywords(
        "SMALL = dict(zero_stage=2, clip=1.0)\n"
        "def build():\n"
        "    return make(**{**SMALL, 'zero_stage': 3}, name='x')\n").merged()
    assert values == {"zero_stage": 3, "clip": 1.0, "name": "x"} and not is_open


def test_dict_call_with_a_mapping_and_a_union_are_read():
    values, _, is_open = _keywords(
        "A = {'offload': True}\nB = dict(A, level=1)\n"
        "make(**(B | {'level': 2}))\n").merged()
    assert values == {"offload": True, "level": 2} and not is_open


def test_a_key_given_twice_at_the_call_has_no_known_value():
    from dslint.facts.config_dicts import NotLiteral

    values, _, _ = _keywords("KW = {'level': 1}\nmake(**KW, level=2)\n").merged()
    assert isinstance(values["level"], NotLiteral)


def test_unseen_keys_open_the_call_and_hide_the_keys_before_them():
    from dslint.facts.config_dicts import NotLiteral

    values, _, is_open = _keywords("def f(**extra):\n    make(**{'level': 1, **extra, 'tail': 2})\n").merged()
    assert is_open and isinstance(values["level"], NotLiteral) and values["tail"] == 2


def test_a_dict_the_module_changes_is_not_its_literal():
    from dslint.facts.config_dicts import NotLiteral

    updated = _keywords("KW = {'level': 1}\nKW.update(level=2)\nmake(**KW)\n").merged()
    assert updated[2] is True
    stored, _, is_open = _keywords("KW = {'level': 1, 'a': 0}\nKW['level'] = 2\nmake(**KW)\n").merged()
    assert not is_open and isinstance(stored["level"], NotLiteral) and stored["a"] == 0


def test_command_line_defaults_inside_the_dict_are_not_constants():
    from dslint.facts.config_dicts import NotLiteral

    values, _, _ = _keywords(
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--level', type=int, default=2)\n"
        "args = p.parse_args()\nmake(**dict(level=args.level, fixed=3))\n").merged()
    assert isinstance(values["level"], NotLiteral) and values["fixed"] == 3


# -- DeepSpeedStrategy(**X): DSL203 ---------------------------------------------------------------
STRATEGY_USER = """import lightning.pytorch as pl
from lightning.pytorch.strategies import DeepSpeedStrategy
from settings import OFFLOAD


def trainer():
    return pl.Trainer(devices=2, strategy=DeepSpeedStrategy(**OFFLOAD, logging_batch_size_per_gpu=4))
"""


def test_imported_strategy_dict_through_a_reexporting_package_is_read(tmp_path):
    found = _check(tmp_path, {
        "settings/__init__.py": "from .zero import OFFLOAD\n",
        "settings/zero.py": "OFFLOAD = {'stage': 2, 'offload_optimizer': True}\n",
        "fit.py": STRATEGY_USER}, "DSL203")
    assert found == [("fit.py", 7)]


@pytest.mark.parametrize("zero", [
    "OFFLOAD = {'stage': 2, 'offload_optimizer': True, 'pin_memory': True}\n",
    "OFFLOAD = {'stage': 2, 'offload_optimizer': False}\n",
    "def _kw():\n    return {'stage': 2}\nOFFLOAD = dict(**_kw(), offload_optimizer=True)\n",
    "OFFLOAD = {'stage': 2, 'offload_optimizer': True}\nOFFLOAD.update(pin_memory=True)\n",
])
def test_imported_strategy_dict_that_pins_or_is_not_known_is_quiet(tmp_path, zero):
    assert _check(tmp_path, {"settings.py": zero, "fit.py": STRATEGY_USER}, "DSL203") == []


def test_strategy_dict_of_the_same_module_is_read(tmp_path):
    found = _check(tmp_path, {"fit.py": (
        "import lightning.pytorch as pl\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
        "BASE = dict(stage=3)\n"
        "def trainer():\n"
        "    kw = {**BASE, 'offload_parameters': True}\n"
        "    return pl.Trainer(devices=2, strategy=DeepSpeedStrategy(**kw))\n")}, "DSL203")
    assert found == [("fit.py", 6)]


def test_strategy_kwargs_of_a_parameter_stay_unknown(tmp_path):
    assert _check(tmp_path, {"fit.py": (
        "import lightning.pytorch as pl\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
        "def trainer(**extra):\n"
        "    return pl.Trainer(devices=2, strategy=DeepSpeedStrategy(offload_optimizer=True, **extra))\n")},
        "DSL203") == []


# -- DeepSpeedPlugin(**X): DSL608 -----------------------------------------------------------------
PLUGIN_USER = """import torch
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin
{head}

def run(net):
    acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin({keywords}))
    net, opt = acc.prepare(net, torch.optim.SGD(net.parameters(), lr=0.1))
"""
LAUNCH = "accelerate launch --num_processes 2 job.py\n"


def test_imported_plugin_dict_merged_with_a_key_gives_the_plugin_keywords(tmp_path):
    found = _check(tmp_path, {
        "zero_kw.py": "ZERO = dict(zero_stage=1, gradient_accumulation_steps=4)\n",
        "job.py": PLUGIN_USER.format(head="from zero_kw import ZERO",
                                     keywords="**{**ZERO, 'offload_param_device': 'cpu'}"),
        "go.sh": LAUNCH}, "DSL608")
    assert found == [("job.py", 7)]


def test_plugin_dict_whose_later_key_raises_the_stage_is_quiet(tmp_path):
    assert _check(tmp_path, {
        "job.py": PLUGIN_USER.format(head="ZERO = {'zero_stage': 1, 'offload_param_device': 'cpu'}",
                                     keywords="**{**ZERO, 'zero_stage': 3}"),
        "go.sh": LAUNCH}, "DSL608") == []


def test_plugin_dict_of_a_library_or_unknown_name_is_quiet(tmp_path):
    assert _check(tmp_path, {
        "job.py": PLUGIN_USER.format(head="from elsewhere_not_here import ZERO",
                                     keywords="offload_param_device='cpu', **ZERO"),
        "go.sh": LAUNCH}, "DSL608") == []


# -- fire.Fire(fn): DSL101 ------------------------------------------------------------------------
FIRE_SCRIPT = """import fire
import torch
import torch.distributed as dist


def main(steps: int = 10, gpu: str = "cuda:1"):
    dist.init_process_group("nccl")
    net = torch.nn.Linear(4, 4).to(gpu)
    net = torch.nn.parallel.DistributedDataParallel(net)
{extra}

if __name__ == "__main__":
    fire.Fire(main)
"""


@pytest.mark.parametrize("args, flagged", [
    ("", True),
    ("--steps 20", True),  # the value of --steps is no positional word
    ("--steps=20 --nogpu_check", True),
    ("--gpu cuda", False),
    ("-gpu=cuda", False),
    ("--gpu=cuda", False),
    ("-g cuda", False),
    ("20", False),  # positional: steps=20 ... and the next word would be gpu
    ('"$@"', False),
])
def test_fire_function_defaults_are_command_line_defaults(tmp_path, args, flagged):
    found = _check(tmp_path, {"job.py": FIRE_SCRIPT.format(extra=""),
                              "go.sh": f"torchrun --nproc_per_node 4 job.py {args}\n"}, "DSL101")
    assert (found == [("job.py", 8)]) is flagged


def test_fire_function_called_elsewhere_too_is_not_read(tmp_path):
    source = FIRE_SCRIPT.format(extra="\n\ndef smoke():\n    main(gpu='cuda')\n")
    assert _check(tmp_path, {"job.py": source, "go.sh": "torchrun --nproc_per_node 4 job.py\n"}, "DSL101") == []


# -- typer: DSL101 --------------------------------------------------------------------------------
TYPER_SCRIPT = """import torch
import torch.distributed as dist
import typer

app = typer.Typer()


@app.command()
def main(data_dir: str = "data", main_gpu: str = "cuda:0"{more}):
    dist.init_process_group("nccl")
    net = torch.nn.Linear(4, 4).to(main_gpu)
    net = torch.nn.parallel.DistributedDataParallel(net)


if __name__ == "__main__":
    app()
"""


@pytest.mark.parametrize("args, more, flagged", [
    ("", "", True),
    ("shards", ", extra: str = typer.Argument('x')", True),  # a positional word sets an argument, not the option
    ("--main-gpu cuda", "", False),
    ("--main-gpu=cuda", "", False),
])
def test_typer_command_defaults_are_command_line_defaults(tmp_path, args, more, flagged):
    found = _check(tmp_path, {"job.py": TYPER_SCRIPT.format(more=more),
                              "go.sh": f"torchrun --nproc_per_node 4 job.py {args}\n"}, "DSL101")
    assert (found == [("job.py", 11)]) is flagged


def test_typer_option_objects_are_not_read(tmp_path):
    source = TYPER_SCRIPT.format(more="").replace('main_gpu: str = "cuda:0"', 'main_gpu: str = typer.Option("cuda:0")')
    assert _check(tmp_path, {"job.py": source, "go.sh": "torchrun --nproc_per_node 4 job.py\n"}, "DSL101") == []


def test_typer_run_function_is_read(tmp_path):
    source = ("import torch\nimport torch.distributed as dist\nimport typer\n\n\n"
              "def main(gpu: int = 0):\n    dist.init_process_group('nccl')\n    torch.cuda.set_device(gpu)\n\n\n"
              "typer.run(main)\n")
    assert _check(tmp_path, {"job.py": source, "go.sh": "torchrun --nproc_per_node 4 job.py\n"}, "DSL101") == \
        [("job.py", 8)]
