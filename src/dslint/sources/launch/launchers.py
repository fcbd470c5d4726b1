"""One table of the launchers dslint reads: what starts each one, what it does, how it is parsed.

Every module that needs to know about a launcher (the walker in launch.py, the facts in
launch/facts.py, the linker, the launch rules) reads `LAUNCHERS` instead of keeping its own list.
Behaviour is cited from the launchers' sources (torch/distributed/run.py, deepspeed/launcher/
runner.py and launch.py, accelerate/commands/launch.py and utils/launch.py, lightning/fabric/cli.py,
srun(1), mpirun(1)); the option tables are in launch/flags.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Sequence

from . import flags

# What a launcher puts in OMP_NUM_THREADS when the command leaves it unset.
OMP_ONE_IF_SEVERAL = "one-if-several"  # "1" when nproc_per_node > 1 (torch/distributed/run.py config_from_args)
OMP_THREADS_OPTION = "threads-option"  # --num_cpu_threads_per_process, else the inherited value, else "1"
OMP_CORES_PER_RANK = "cores-per-rank"  # only with --bind_cores_to_rank: the cores bound to each rank
OMP_CPUS_PER_PROCESS = "cpus-per-process"  # setdefault(CPU count // local processes)
OMP_INHERITED = "inherited"  # leaves it alone: the ranks see the caller's environment


@dataclass(frozen=True)
class ProcessCount:
    """The option keys (argparse dest / Slurm and Open MPI long names) a launcher counts processes with.

    per_node: processes on each node; nodes: number of nodes; total: processes over all nodes.
    The defaults are the launcher's when the option is absent (None: no literal default, e.g. one
    process per visible GPU)."""

    per_node: Optional[str] = None
    nodes: Optional[str] = None
    total: Optional[str] = None
    per_node_default: Optional[str] = None
    nodes_default: Optional[str] = None


@dataclass(frozen=True)
class PassedLocalRank:
    """The `--local_rank=<i>` a launcher puts in each process's argv before the script's own words
    (deepspeed/launcher/launch.py `cmd.append(f"--local_rank={local_rank}")` unless --no_local_rank;
    torch/distributed/run.py `config_from_args`: `--local-rank=` from torch 2.0, `--local_rank=` before,
    unless torch.distributed.launch's --use-env; torchrun always runs with use_env)."""

    words: tuple[str, ...]  # the option as the launcher spells it, over its versions
    unless: str  # the launcher's option (key) that stops it


@dataclass(frozen=True)
class LauncherSpec:
    kind: str
    # Programs that start it, each as the words written (`accelerate launch`, `fabric run`).
    commands: tuple[tuple[str, ...], ...]
    modules: tuple[str, ...]  # `python -m MODULE` that starts it
    starts_ranks: bool  # starts the training processes itself (the script must not spawn again)
    per_node: bool  # one launcher per node starts that node's ranks (srun/mpirun place ranks themselves)
    omp_default: str  # one of the OMP_* constants above
    port_options: tuple[str, ...]  # rendezvous port, by key
    config_options: tuple[str, ...]  # a config file the launcher itself reads, by key
    count: ProcessCount
    options: Mapping[str, object]  # option table (launch/flags.py)
    parser: str  # "argparse" | "click" | "getopt" | "mpirun" | "python"
    allow_abbrev: bool = False  # argparse accepts unique prefixes of long options
    local_rank: Optional[PassedLocalRank] = None  # the option it passes the script itself


_TORCH_COUNT = ProcessCount(per_node="nproc_per_node", nodes="nnodes", per_node_default="1", nodes_default="1:1")

LAUNCHERS: Mapping[str, LauncherSpec] = MappingProxyType({spec.kind: spec for spec in (
    LauncherSpec(
        "torchrun", (("torchrun",),), ("torch.distributed.run",), starts_ranks=True, per_node=True,
        omp_default=OMP_ONE_IF_SEVERAL, port_options=("master_port",), config_options=(),
        count=_TORCH_COUNT, options=flags.TORCHRUN, parser="argparse", allow_abbrev=True),
    # torch/distributed/launch.py: run.py's parser plus --use-env, then run.run(args).
    LauncherSpec(
        "torch.distributed.launch", (), ("torch.distributed.launch",), starts_ranks=True, per_node=True,
        omp_default=OMP_ONE_IF_SEVERAL, port_options=("master_port",), config_options=(),
        count=_TORCH_COUNT, options=flags.TORCH_LAUNCH, parser="argparse", allow_abbrev=True,
        local_rank=PassedLocalRank(("--local-rank", "--local_rank"), "use_env")),
    # runner.py: --num_gpus (default -1: every GPU of each host), --num_nodes (default -1: every host
    # of the hostfile, localhost without one), --include/--exclude, --hostfile (default /job/hostfile).
    # launch.py sets OMP_NUM_THREADS only with --bind_cores_to_rank.
    LauncherSpec(
        "deepspeed", (("deepspeed",),), ("deepspeed.launcher.runner",), starts_ranks=True, per_node=True,
        omp_default=OMP_CORES_PER_RANK, port_options=("master_port",), config_options=("hostfile",),
        count=ProcessCount(per_node="num_gpus", nodes="num_nodes"),
        options=flags.DEEPSPEED, parser="argparse", allow_abbrev=True,
        local_rank=PassedLocalRank(("--local_rank",), "no_local_rank")),
    # --num_processes is the total over all machines (utils/launch.py: nproc_per_node =
    # num_processes // num_machines); a --config_file (or the default config) supplies what is absent.
    LauncherSpec(
        "accelerate", (("accelerate", "launch"), ("accelerate-launch",)), ("accelerate.commands.launch",),
        starts_ranks=True, per_node=True, omp_default=OMP_THREADS_OPTION, port_options=("main_process_port",),
        config_options=("config_file",), count=ProcessCount(total="num_processes", nodes="num_machines"),
        options=flags.ACCELERATE_ANY_VERSION, parser="argparse", allow_abbrev=False),
    # lightning/fabric/cli.py: --devices default "1", --num-nodes default 1, --main-port 29400.
    LauncherSpec(
        "lightning", (("fabric", "run"), ("lightning", "run", "model")), ("lightning.fabric.cli", "lightning_fabric.cli"),
        starts_ranks=True, per_node=True, omp_default=OMP_CPUS_PER_PROCESS, port_options=("main_port",),
        config_options=(), count=ProcessCount(per_node="devices", nodes="num_nodes", per_node_default="1",
                                              nodes_default="1"),
        options=flags.FABRIC, parser="click"),
    LauncherSpec(
        "srun", (("srun",),), (), starts_ranks=True, per_node=False, omp_default=OMP_INHERITED, port_options=(),
        config_options=(), count=ProcessCount(per_node="ntasks-per-node", nodes="nodes", total="ntasks"),
        options=flags.SRUN_LONG, parser="getopt"),
    LauncherSpec(
        "mpirun", (("mpirun",), ("mpiexec",), ("orterun",)), (), starts_ranks=True, per_node=False,
        omp_default=OMP_INHERITED, port_options=(), config_options=(),
        count=ProcessCount(per_node="npernode", total="np"), options=flags.MPIRUN, parser="mpirun"),
    LauncherSpec(
        "python", (), (), starts_ranks=False, per_node=False, omp_default=OMP_INHERITED, port_options=(),
        config_options=(), count=ProcessCount(), options=MappingProxyType({}), parser="python"),
)})

# Programs that hand their options to torchrun's own parser and call torch.distributed.run.run(args),
# but only when one is given (torchtune/_cli/run.py: `tune run [TORCHRUN-OPTIONS] <recipe> --config
# <config> [RECIPE-OPTIONS]`; with none it runs the recipe in its own process, without torchrun).
TORCHRUN_WRAPPERS: tuple[tuple[str, ...], ...] = (("tune", "run"),)


def wraps_torchrun(program: Optional[str]) -> bool:
    """The program (a path or a name) is one of TORCHRUN_WRAPPERS."""
    return bool(program) and program.replace("\\", "/").rsplit("/", 1)[-1] in {w[0] for w in TORCHRUN_WRAPPERS}


LAUNCHER_KINDS: tuple[str, ...] = tuple(LAUNCHERS)
# Launchers that start the ranks (the outermost one of these in a chain after the others decides).
SPAWNING_KINDS: tuple[str, ...] = tuple(k for k, s in LAUNCHERS.items() if s.starts_ranks)
# Launchers that run once per node and start that node's ranks (torchrun, deepspeed, accelerate, fabric).
PER_NODE_KINDS: tuple[str, ...] = tuple(k for k, s in LAUNCHERS.items() if s.per_node)
# `python -m MODULE` -> launcher kind.
PYTHON_MODULES: Mapping[str, str] = MappingProxyType({m: s.kind for s in LAUNCHERS.values() for m in s.modules})
# Every option key that names a rendezvous port, over all launchers.
PORT_OPTIONS: tuple[str, ...] = tuple(dict.fromkeys(o for s in LAUNCHERS.values() for o in s.port_options))
# First words of the programs that start a launcher (python aside).
COMMAND_WORDS: frozenset[str] = frozenset(words[0] for s in LAUNCHERS.values() for words in s.commands) \
    | frozenset(words[0] for words in TORCHRUN_WRAPPERS)

# The words that start a launcher, longest first: `lightning run model` before a bare `lightning`.
_COMMAND_KINDS = sorted([*((words, s.kind) for s in LAUNCHERS.values() for words in s.commands),
                         *((words, "torchrun") for words in TORCHRUN_WRAPPERS)], key=lambda wk: -len(wk[0]))
# A regular expression (no groups) for any word or `-m` module that starts a launcher, python aside:
# the cheap test of whether a file is worth parsing.
WORD_PATTERN = "|".join(re.escape(w) for w in sorted(COMMAND_WORDS | set(PYTHON_MODULES), key=lambda w: (-len(w), w)))


def launcher_kind(program: str, following: Sequence[Optional[str]]) -> Optional[str]:
    """The launcher that the program `program` (a basename) starts, given the words after it
    (`accelerate` starts one only before `launch`); None for any other program, python included."""
    for words, kind in _COMMAND_KINDS:
        if words[0] == program and tuple(following[:len(words) - 1]) == words[1:]:
            return kind
    return None


# Options of the *script* that name its DeepSpeed config, whatever launched it: DeepSpeed's own
# (deepspeed/__init__.py _add_core_arguments: --deepspeed_config, the legacy --deepscale_config) and
# the spellings training scripts commonly add; HF's `--deepspeed X.json` is read beside them.
SCRIPT_CONFIG_OPTIONS = ("--deepspeed_config", "--deepspeed_config_file", "--deepspeed-config", "--deepscale_config")


def spawner(launchers: list) -> Optional[object]:
    """The launcher of a chain that starts the ranks: the innermost that does (`srun torchrun`: torchrun)."""
    return next((lc for lc in reversed(launchers) if lc.kind in SPAWNING_KINDS), None)


def passed_local_rank(launchers: list) -> tuple[str, ...]:
    """The spellings of the local-rank option that the chain's spawning launcher adds to the script's
    argv itself (`python -m torch.distributed.launch train.py`: `--local-rank=<i>`), () when it adds none
    or the command gives the option that stops it (`--use-env`). Words dslint cannot read among its
    options may give that option: it may pass it then."""
    found = spawner(launchers)
    spec = LAUNCHERS[found.kind].local_rank if found is not None else None
    if spec is None or spec.unless in found.options:
        return ()
    return spec.words


def torch_spawner(launchers: list) -> Optional[object]:
    """The innermost per-node launcher of a chain (torchrun, deepspeed, accelerate, fabric), or None."""
    return next((lc for lc in reversed(launchers) if lc.kind in PER_NODE_KINDS), None)
