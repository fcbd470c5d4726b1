"""Differential tests: dslint's launcher tables and option parsing against the launchers' own parsers.

torch, deepspeed, accelerate and lightning are imported here only (dslint never imports them); a
launcher that is not installed is skipped with the reason.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import shlex
import sys
from pathlib import Path

import pytest

from dslint.sources.launch import flags as launch_flags
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.launchers import LAUNCHERS, PYTHON_MODULES

_GEN = Path(__file__).resolve().parent.parent / "dev" / "gen_launch_flags.py"
_spec = importlib.util.spec_from_file_location("gen_launch_flags", _GEN)
gen = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("gen_launch_flags", gen)
_spec.loader.exec_module(gen)

# table name -> (launcher kind, distribution to import, the words that start it on a launch line)
ARGPARSE = {
    "TORCHRUN": ("torchrun", "torch", "torchrun"),
    "TORCH_LAUNCH": ("torch.distributed.launch", "torch", "python -m torch.distributed.launch"),
    "DEEPSPEED": ("deepspeed", "deepspeed", "deepspeed"),
    "ACCELERATE": ("accelerate", "accelerate", "accelerate launch"),
}


def _parser(name: str):
    distribution = ARGPARSE[name][1]
    pytest.importorskip(distribution, reason=f"{distribution} is not installed: no parser to compare {name} with")
    return gen.real_parsers()[name]


@pytest.mark.parametrize("name", sorted(ARGPARSE))
def test_option_table_equals_the_launchers_parser(name):
    parser = _parser(name)
    assert getattr(launch_flags, name) == gen.option_table(parser)
    spec = LAUNCHERS[ARGPARSE[name][0]]
    assert spec.options is getattr(launch_flags, name + "_ANY_VERSION", getattr(launch_flags, name))
    assert spec.allow_abbrev == parser.allow_abbrev


def test_retired_accelerate_options_are_ones_the_installed_accelerate_lacks():
    parser = _parser("ACCELERATE")
    assert not set(launch_flags.ACCELERATE_RETIRED) & set(gen.option_table(parser))
    assert launch_flags.ACCELERATE_ANY_VERSION.items() >= launch_flags.ACCELERATE.items()


def test_a_line_written_for_an_older_accelerate_keeps_its_script_and_count():
    line = "accelerate launch --fp8_opt_level O2 --num_processes 4 train.py --lr 1\n"
    (command,) = parse_launch_file(line).commands
    assert command.script == "train.py"
    assert [a.value for a in command.script_args] == ["--lr", "1"]
    assert command.launcher("accelerate").options["num_processes"].value == "4"


def test_deepspeed_table_has_no_elastic_options_and_accelerate_has_checkpointing_offload():
    # The two drifts issue 11 found: options DeepSpeed 0.19.8's runner does not have, one accelerate 1.15 has.
    assert not {"--elastic_training", "--min_elastic_nodes", "--max_elastic_nodes"} & set(launch_flags.DEEPSPEED)
    assert launch_flags.ACCELERATE["--fsdp_activation_checkpointing_offload"] == (
        "fsdp_activation_checkpointing_offload", 1)


def test_fabric_table_equals_the_click_command():
    pytest.importorskip("lightning", reason="lightning is not installed: no `fabric run` command to compare with")
    assert launch_flags.FABRIC == gen.fabric_table()
    assert LAUNCHERS["lightning"].options is launch_flags.FABRIC


def test_python_modules_and_console_scripts_start_the_launcher_they_are_listed_for():
    pytest.importorskip("torch", reason="torch is not installed")
    for module in PYTHON_MODULES:
        top = module.split(".")[0]
        if importlib.util.find_spec(top) is not None:
            assert importlib.util.find_spec(module) is not None, module
    scripts = {e.name: e.value.split(":")[0] for e in importlib.metadata.entry_points(group="console_scripts")}
    for spec in LAUNCHERS.values():
        for words in spec.commands:
            if len(words) == 1 and words[0] in scripts:
                assert scripts[words[0]] in spec.modules, (words, scripts[words[0]])
    assert scripts.get("torchrun") == "torch.distributed.run"


def test_the_generator_reports_no_drift(capsys):
    pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("deepspeed", reason="deepspeed is not installed")
    pytest.importorskip("accelerate", reason="accelerate is not installed")
    pytest.importorskip("lightning", reason="lightning is not installed")
    assert gen.main(["--check"]) == 0, capsys.readouterr().out


# -- launch lines: dslint's parse against the real parser's -----------------------------------

LINES = {
    "TORCHRUN": [
        "--nproc_per_node=8 train.py --lr 1e-4",
        "--nproc-per-node 4 --nnodes 2 --master_port 29501 train.py",
        "--nproc_per 2 train.py --nproc_per_node 3",  # abbreviation; the option after the script is the script's
        "--standalone --nnodes=1 --nproc-per-node=gpu train.py",
        "--nnodes=1:4 --nproc_per_node=8 --max-restarts=3 --rdzv-backend=c10d --rdzv-endpoint=node0:29400 train.py",
        "--master-addr 10.0.0.1 --master-port=29600 --node_rank 1 --nnodes 2 --nproc_per_node 8 train.py "
        + "--deepspeed_config ds.json",
        "--nproc_per_node 2 -- train.py --epochs 3",
        "--nproc_per_node=2 -m pkg.train --epochs 3",
        "--master_p 29700 --nproc_per_node 2 train.py",
    ],
    "TORCH_LAUNCH": [
        "--nproc_per_node=4 --use_env train.py --local_rank 0",
        "--nproc_per_node 2 --master_port=29502 --use-env main.py",
    ],
    "DEEPSPEED": [
        "--num_gpus 8 train.py --deepspeed --deepspeed_config ds.json",
        "--num_gpus=2 --num_nodes=1 --master_port 29501 main.py --num_gpus 4",
        "--include localhost:0,1 train.py",
        "-H hostfile --include host1:0,1@host2:2 train.py",
        "--num_g 4 train.py",  # abbreviation
        "--hostfile=conf/hostfile --launcher openmpi --launcher_args '-x NCCL_DEBUG=INFO' train.py",
        "--bind_cores_to_rank --bind_core_list 0-7 --num_gpus 1 train.py --epochs 3",
        "--module --num_gpus 2 pkg.train --lr 3",
        "--num_accelerators=4 --master_addr 10.1.1.1 --exclude=worker-1:0 train.py",
        "-i localhost:1 --ssh_port 2222 train.py",
    ],
    "ACCELERATE": [
        "--num_processes 8 --mixed_precision bf16 train.py",
        "--config_file configs/zero3.yaml --num-processes=4 train.py --config_file x.yaml",
        "--multi_gpu --num_processes=2 --num_machines 1 --main_process_port 29600 train.py",
        "--use_deepspeed --zero_stage 3 --offload_optimizer_device cpu --num_processes 8 train.py",
        "--use_fsdp --fsdp_activation_checkpointing_offload true --num_processes 2 train.py",
        "--num_processes 2 -m pkg.train --lr 3",
        "--main-process-port=29501 --num-machines=2 --machine-rank 0 --num_processes 16 train.py",
    ],
}


def _compared_keys(kind: str) -> tuple:
    spec = LAUNCHERS[kind]
    count = spec.count
    keys = [k for k in (count.per_node, count.nodes, count.total) if k] + list(spec.port_options)
    keys += list(spec.config_options)
    return tuple(keys) + (("include", "exclude") if kind == "deepspeed" else ())


def _real(parser, argv: list):
    namespace = parser.parse_args(argv)
    positionals = [a.dest for a in parser._actions if not a.option_strings]
    return namespace, getattr(namespace, positionals[0]), list(getattr(namespace, positionals[1]))


@pytest.mark.parametrize("name,line", [(n, line) for n, lines in LINES.items() for line in lines])
def test_launch_line_reads_as_the_launcher_reads_it(name, line):
    parser = _parser(name)
    kind, _, words = ARGPARSE[name]
    namespace, script, script_args = _real(parser, shlex.split(line))
    launch = parse_launch_file(f"{words} {line}\n")
    assert len(launch.commands) == 1
    command = launch.commands[0]
    launcher = command.launcher(kind)
    assert launcher is not None
    assert (command.script or command.module) == script
    assert [a.value for a in command.script_args] == script_args
    for key in _compared_keys(kind):
        option = launcher.options.get(key)
        ours = option.value if option is not None else str(parser.get_default(key))
        assert ours == str(getattr(namespace, key)), key


@pytest.mark.parametrize("kind,words", [(s.kind, w) for s in LAUNCHERS.values() for w in s.commands]
                         + [(kind, ("python", "-m", module)) for module, kind in PYTHON_MODULES.items()])
def test_every_word_of_the_table_starts_its_launcher_on_a_launch_line(kind, words):
    words = list(words) + (["run"] if words[-1].endswith("fabric.cli") else [])
    command = parse_launch_file(" ".join(words) + " train.py --epochs 3\n").commands[0]
    assert [lc.kind for lc in command.launchers] == [kind]
    assert command.script == "train.py"
    assert [a.value for a in command.script_args] == ["--epochs", "3"]


def test_a_launcher_word_before_another_subcommand_is_not_a_launch():
    assert parse_launch_file("accelerate config --config_file x.yaml\n").commands == []
    assert parse_launch_file("fabric consolidate ckpt/\n").commands == []
