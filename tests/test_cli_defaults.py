"""Values that are command-line defaults: valid unless the launch line passes the option (DSL101,
DSL204, the HfArgumentParser config path), and fixed devices in programs every launch starts once."""
from __future__ import annotations

import ast
import textwrap

from dslint.facts.bindings import semantic_model
from dslint.facts.script import build_script_facts
from dslint.facts.values import UNKNOWN, option_on_command_line, traced_constant
from dslint.model import Location, Span
from dslint.sources.launch.model import ShellArg


def _model(source: str):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    return semantic_model(build_script_facts("job.py", source, tree)), tree


def _argument_of(tree, func: str) -> ast.expr:
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == func]
    return call.args[0]


# -- the values layer -----------------------------------------------------------------------------
def test_traced_constant_names_the_options_whose_default_it_took():
    model, tree = _model("""
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--gpu-index", "-g", type=int, default="2")
        p.add_argument("--root", default="/data")
        opts = p.parse_args()
        chosen = opts.gpu_index
        place(chosen)
        keep(opts.root + "/x")
    """)
    traced = traced_constant(model, _argument_of(tree, "place"))
    assert (traced.value, traced.options) == (2, ("--gpu-index", "-g"))
    assert [ast.unparse(f) for f in traced.followed] == ["opts.gpu_index"]
    assert traced_constant(model, _argument_of(tree, "keep")).options == ("--root",)


def test_a_namespace_passed_to_the_function_that_uses_it_is_still_the_parser_s():
    model, tree = _model("""
        import argparse
        def cli():
            p = argparse.ArgumentParser()
            p.add_argument("--accel", default="cuda:3")
            return p.parse_args()
        def run(opts):
            place(opts.accel)
        def other(opts):
            keep(opts.accel)
        run(cli())
        other(cli())
        other(object())
    """)
    assert traced_constant(model, _argument_of(tree, "place")).value == "cuda:3"
    assert traced_constant(model, _argument_of(tree, "keep")).value is UNKNOWN  # one call passes something else


def test_a_dict_entry_is_constant_only_while_nothing_can_change_the_dict():
    model, tree = _model("""
        SETTINGS = {"accel": "cuda:1", "lr": 0.1}
        TABLE = {"accel": "cuda:1"}
        TABLE["accel"] = pick()
        SHARED = {"accel": "cuda:1"}
        merge_overrides(SHARED)
        READ = {"accel": "cuda:1"}
        if "accel" in READ and READ.get("lr") is None:
            pass
        a(SETTINGS["accel"])
        b(TABLE["accel"])
        c(SHARED["accel"])
        d(READ["accel"])
    """)
    assert [traced_constant(model, _argument_of(tree, f)).value for f in "abcd"] == ["cuda:1", UNKNOWN, UNKNOWN, "cuda:1"]


def test_an_optional_positional_argument_is_not_a_default_the_launch_keeps():
    model, tree = _model("""
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("accel", nargs="?", default="cuda:0")
        place(p.parse_args().accel)
    """)
    assert traced_constant(model, _argument_of(tree, "place")).value is UNKNOWN


def _args(*words):
    blank = Span(Location(1, 1), Location(1, 1))
    return [ShellArg(w, w if w is not None else "$@", blank) for w in words]


def test_option_on_command_line_reads_given_absent_and_unknown_words():
    options = ("--num-workers", "-j")
    assert option_on_command_line(_args("--epochs", "3"), options) == (False, None)
    assert option_on_command_line(_args("--num-workers", "4"), options) == (True, "4")
    assert option_on_command_line(_args("--num-workers=6", "--num-workers", "2"), options) == (True, "2")
    assert option_on_command_line(_args("--num", "5"), options) == (True, "5")  # argparse's prefix matching
    assert option_on_command_line(_args("-j8"), options) == (True, "8")
    assert option_on_command_line(_args("--epochs", None), options) == (None, None)  # "$@"


# -- DSL101 --------------------------------------------------------------------------------------
ARGPARSE_DEVICE = """import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accel", default="cuda:0")
    parser.add_argument("--steps", type=int, default=10)
    return parser.parse_args()


def train(opts):
    dist.init_process_group("nccl")
    net = DistributedDataParallel(torch.nn.Linear(4, 4).to(opts.accel))
    for _ in range(opts.steps):
        net(torch.randn(2, 4, device=opts.accel)).sum().backward()


if __name__ == "__main__":
    train(options())
"""


def test_argparse_device_default_is_reported_once_unless_the_launch_passes_it(project):
    project.write({"go.sh": "torchrun --nproc_per_node=8 fit.py --steps 5\n", "fit.py": ARGPARSE_DEVICE})
    findings = project.check().findings
    assert [(f.code, f.span.start.row) for f in findings] == [("DSL101", 17)]
    assert "the default of --accel" in findings[0].message
    project.write({"go.sh": "torchrun --nproc_per_node=8 fit.py --accel cuda\n"})
    assert project.codes() == []
    project.write({"go.sh": 'torchrun --nproc_per_node=8 fit.py "$@"\n'})
    assert project.codes() == []


def test_module_constant_and_config_dict_devices_are_followed(project):
    project.write({"go.sh": "torchrun --nproc_per_node=2 fit.py\n", "fit.py": """import torch
import torch.distributed as dist

ACCEL = "cuda:1"
HPARAMS = {"accel": "cuda:0", "width": 16}


def main():
    dist.init_process_group("nccl")
    head = torch.nn.Linear(16, 2).to(ACCEL)
    body = torch.nn.Linear(16, 16).to(HPARAMS["accel"])
    return head, body


main()
"""})
    assert [(f.code, f.span.start.row) for f in project.check().findings] == [("DSL101", 10), ("DSL101", 11)]


def test_a_device_chosen_per_rank_or_under_a_world_size_test_stays_silent(project):
    project.write({"go.sh": "torchrun --nproc_per_node=2 fit.py\n", "fit.py": """import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
if int(os.environ.get("WORLD_SIZE", 1)) == 1:
    accel = "cuda:0"
else:
    accel = f"cuda:{os.environ['LOCAL_RANK']}"
LOOKUP = {"accel": "cuda:0"}
LOOKUP["accel"] = f"cuda:{os.environ['LOCAL_RANK']}"
if os.environ.get("WORLD_SIZE") == "1":
    lone = "cuda:0"
torch.nn.Linear(2, 2).to(accel)
torch.nn.Linear(2, 2).to(LOOKUP["accel"])
torch.nn.Linear(2, 2).to(lone)
"""})
    assert project.codes() == []


def test_fixed_devices_are_right_when_every_launch_starts_one_process(project):
    script = """import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
torch.cuda.set_device(0)
net = DDP(torch.nn.Linear(2, 2).to("cuda:0"), device_ids=[0])
"""
    project.write({"Makefile": "smoke:\n\ttorchrun --standalone --nproc_per_node 1 fit.py\n", "fit.py": script})
    assert project.codes() == []
    project.write({"Makefile": "smoke:\n\ttorchrun --standalone --nproc_per_node 1 fit.py\n"
                               "full:\n\ttorchrun --standalone --nproc_per_node 4 fit.py\n"})
    assert project.codes() == ["DSL101", "DSL101", "DSL101"]


def test_without_a_launch_line_a_fixed_default_is_still_reported(project):
    project.write({"fit.py": ARGPARSE_DEVICE})
    assert project.codes() == ["DSL101"]


# -- DSL204 --------------------------------------------------------------------------------------
LOADER = """import argparse

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

ap = argparse.ArgumentParser()
ap.add_argument("--loader-procs", "-j", type=int, default=10)
cfg = ap.parse_args()
dist.init_process_group("nccl")
items = list(range(64))
feed = DataLoader(items, sampler=DistributedSampler(items), num_workers=cfg.loader_procs)
"""


def _sbatch(script_args: str) -> str:
    return ("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=24\n"
            f"srun torchrun --nproc_per_node=4 load.py {script_args}\n")


def test_loader_workers_default_of_an_option_counts_unless_the_launch_changes_it(project):
    project.write({"job.sbatch": _sbatch("--seed 1"), "load.py": LOADER})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL204"]
    assert "num_workers=10 (the default of --loader-procs / -j) in each of 4 ranks" in findings[0].message
    project.write({"job.sbatch": _sbatch("-j 4")})
    assert project.codes() == []
    project.write({"job.sbatch": _sbatch("--loader-procs=8")})
    assert "num_workers=8 (--loader-procs on the launch line)" in project.check().findings[0].message
    project.write({"job.sbatch": _sbatch("$EXTRA")})
    assert project.codes() == []


# -- HfArgumentParser dataclass defaults ---------------------------------------------------------
HF_SCRIPT = """from dataclasses import dataclass, field

import transformers
from transformers import HfArgumentParser, Trainer


@dataclass
class DataArgs:
    corpus: str = field(default="data/train")


@dataclass
class RunArgs(transformers.TrainingArguments):
    deepspeed: str = field(default="zero_offload.json")


parser = HfArgumentParser((DataArgs, RunArgs))
data_args, run_args = parser.parse_args_into_dataclasses()
Trainer(model=None, args=run_args).train()
"""
OFFLOAD = ('{"optimizer": {"type": "AdamW", "params": {"lr": "auto"}}, "train_micro_batch_size_per_gpu": "auto", '
           '"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}')
PLAIN = '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}}'


def test_training_arguments_subclass_default_is_the_config_unless_the_launch_passes_deepspeed(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 sft.py --output_dir out\n", "sft.py": HF_SCRIPT,
                   "zero_offload.json": OFFLOAD, "zero_plain.json": PLAIN})
    assert project.codes() == ["DSL202"]
    project.write({"run.sh": "torchrun --nproc_per_node 4 sft.py --output_dir out --deepspeed zero_plain.json\n"})
    assert project.codes() == []


def test_arguments_read_from_a_json_file_leave_the_config_unknown(project):
    script = HF_SCRIPT.replace("parser.parse_args_into_dataclasses()",
                               "parser.parse_json_file(\"args.json\") if USE_FILE else parser.parse_args_into_dataclasses()")
    project.write({"run.sh": "torchrun --nproc_per_node 4 sft.py\n", "sft.py": "USE_FILE = False\n" + script,
                   "zero_offload.json": OFFLOAD})
    assert project.codes() == []


def test_a_click_option_default_is_a_command_line_default():
    model, tree = _model("""
        import click

        @click.command()
        @click.option("--accel-name", default="cuda:2", show_default=True)
        @click.option("--loader", "-w", "loaders", type=int, default=6)
        @click.option("--seed", envvar="SEED", default=1)
        def main(accel_name, loaders, seed):
            place(accel_name)
            feed(loaders)
            keep(seed)
    """)
    place = traced_constant(model, _argument_of(tree, "place"))
    feed = traced_constant(model, _argument_of(tree, "feed"))
    assert (place.value, place.options) == ("cuda:2", ("--accel-name",))
    assert (feed.value, feed.options) == (6, ("--loader", "-w"))
    assert traced_constant(model, _argument_of(tree, "keep")).value is UNKNOWN  # SEED may set it
