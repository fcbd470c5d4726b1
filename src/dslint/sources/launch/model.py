"""Plain data for parsed launch files: commands, launchers, options, env and #SBATCH directives.

Every position is a `dslint.model.Span` (1-based row/column, end exclusive, plus character
offsets into the file's text). A value is `None` where the file does not show it literally
(`$(nproc)`, a variable never assigned a literal); the raw text is kept beside it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from dslint.model import Span

from .launchers import LAUNCHER_KINDS  # noqa: F401  (re-exported: the kinds a Launcher may have)


@dataclass(frozen=True)
class ShellArg:
    """One word of a command after expansion: `value` None when not literal."""

    value: Optional[str]
    raw: str
    span: Span
    # The value comes (partly) from a `${X:-default}` the script leaves to its caller: a count
    # takes it as written; a port so chosen is one the caller may change, not a fixed one.
    from_default: bool = False
    # A `cd` target relative to the launch file's own folder (`cd "$(dirname "$0")"/..`), not to the
    # folder the caller ran it from.
    script_relative: bool = False
    # An unquoted expansion dslint cannot read (`$EXTRA_ARGS`): bash splits it into zero, one or
    # more words, so in a launcher's option area it may hold options (see UNKNOWN_OPTIONS).
    split_unknown: bool = False
    # An unquoted expansion that is empty as written only through a `${X:-}` default: no word
    # when the script runs as written, though its caller may fill it (value None).
    empty_default: bool = False


@dataclass(frozen=True)
class LaunchOption:
    """One option as the launcher parses it.

    `name` is the option as written (`--nproc-per-node`), `key` the launcher's own name for it
    (argparse dest, Slurm/Open MPI long name: `nproc_per_node`, `ntasks-per-node`, `np`).
    `value` is None for a flag or an unknown value (`is_flag` tells which); `span` covers the
    option and its value token(s), `name_span` the option alone.
    """

    name: str
    key: str
    value: Optional[str]
    raw_value: Optional[str]
    is_flag: bool
    span: Span
    name_span: Span
    value_span: Optional[Span] = None
    known: bool = True  # False: not in the launcher's option table
    from_default: bool = False  # the value comes from a `${X:-default}` (see ShellArg)


# The key of a LaunchOption that stands for words dslint cannot read in a launcher's option area
# (`srun -N 2 $SRUN_ARGS python train.py`): they may hold any of the launcher's options.
UNKNOWN_OPTIONS = "*"


@dataclass
class Launcher:
    kind: str  # one of LAUNCHER_KINDS
    word: str  # as written: "torchrun", "python -m torch.distributed.run", "accelerate launch"
    span: Span  # the launcher word(s)
    options: dict[str, LaunchOption] = field(default_factory=dict)  # by key; the last one wins
    option_list: list[LaunchOption] = field(default_factory=list)  # every occurrence, in order

    @property
    def may_have_more_options(self) -> bool:
        """Words dslint cannot read stand among its options (they may set any of them)."""
        return UNKNOWN_OPTIONS in self.options

    def may_reset(self, key: str) -> bool:
        """Whether words dslint cannot read, after the last `key` given (or with none given), may set `key`."""
        last_unknown = last_given = -1
        for k, option in enumerate(self.option_list):
            if option.key == UNKNOWN_OPTIONS:
                last_unknown = k
            elif option.key == key:
                last_given = k
        return last_unknown > last_given


@dataclass(frozen=True)
class EnvValue:
    name: str
    value: Optional[str]  # None when not a literal
    source: str  # "inline" | "export" | "assign"
    span: Span  # the whole NAME=value word (or `export NAME` word)
    from_default: bool = False  # the value comes from a `${X:-default}` (see ShellArg)
    # Where value is None only for `$PWD` / `$(pwd)` and parts the file does not show: the value with
    # those as `.` (the folder the line runs in) and the unknown parts as `$` (`$PWD/src:$` for
    # `PYTHONPATH=$PWD/src:$PYTHONPATH`), so that a path list still gives its readable entries.
    in_launch_dir: Optional[str] = None


@dataclass(frozen=True)
class SbatchDirective:
    name: str  # as written: "--ntasks-per-node", "-N"
    key: str  # Slurm's long name: "ntasks-per-node", "nodes"
    value: Optional[str]
    span: Span  # option and value
    count: Optional[int] = None  # the number in the value where there is one (gres gpu:a100:4 -> 4)


@dataclass
class SbatchDirectives:
    nodes: Optional[SbatchDirective] = None
    ntasks: Optional[SbatchDirective] = None
    ntasks_per_node: Optional[SbatchDirective] = None
    gpus_per_node: Optional[SbatchDirective] = None  # --gpus-per-node, or --gres=gpu:N
    gpus: Optional[SbatchDirective] = None
    gpus_per_task: Optional[SbatchDirective] = None
    cpus_per_task: Optional[SbatchDirective] = None
    job_name: Optional[SbatchDirective] = None
    all: list[SbatchDirective] = field(default_factory=list)  # every directive, in order
    # A heterogeneous job (`#SBATCH hetjob` lines split the directives): each component's directives, in
    # order. The fields above are then None (the job as a whole has no one value); `all` has every directive.
    components: list["SbatchDirectives"] = field(default_factory=list)

    def for_srun(self, srun: "Launcher") -> Optional["SbatchDirectives"]:
        """The directives an srun step runs under: the job's; in a heterogeneous job those of the one
        component its --het-group (--pack-group) names, component 0 without one (Slurm's
        heterogeneous_jobs.html, "Launching Applications"); None for several components or an unknown one."""
        if not self.components:
            return self
        option = srun.options.get("het-group") or srun.options.get("pack-group")
        if option is None:
            return self.components[0]
        value = option.value
        if value is None or not value.isdigit() or int(value) >= len(self.components):
            return None  # `0,1`, `1-2`: one step over several components; `$GROUP`: unknown
        return self.components[int(value)]


@dataclass
class AccelerateFacts:
    config_file: Optional[str] = None
    num_processes: Optional[int] = None
    num_machines: Optional[int] = None
    multi_gpu: bool = False
    use_deepspeed: bool = False
    deepspeed_config_file: Optional[str] = None


@dataclass
class DeepSpeedFacts:
    """The resource options of the deepspeed runner as written (deepspeed/launcher/runner.py parse_args).

    `given` maps each of hostfile, include, exclude, num_gpus, num_nodes the command passes to its
    value (None: not a literal). `visible_devices` is the CUDA_VISIBLE_DEVICES the command exports
    (the runner turns it into `--include localhost:...` when no resource option is given)."""

    given: dict[str, Optional[str]] = field(default_factory=dict)
    visible_devices: Optional[str] = None


@dataclass
class MpirunFacts:
    np: Optional[int] = None
    npernode: Optional[int] = None
    map_by: Optional[str] = None
    bind_to: Optional[str] = None
    exported: dict[str, Optional[str]] = field(default_factory=dict)  # -x NAME[=value]


@dataclass
class SrunFacts:
    """srun's own options, falling back to the enclosing #SBATCH directives (srun reads the
    SLURM_* variables sbatch exports: src/srun/opt.c env_vars[])."""

    nodes: Optional[int] = None
    ntasks: Optional[int] = None
    ntasks_per_node: Optional[int] = None
    gpus_per_node: Optional[int] = None
    cpus_per_task: Optional[int] = None
    job_name: Optional[str] = None


@dataclass(frozen=True)
class HeredocWrite:
    """A file a heredoc writes before the commands after it (`cat <<EOT > PATH`, `cat > PATH <<EOF`,
    `tee PATH <<EOF`; `>>` appends, and is no write of the whole file).

    `path` is the target word resolved (None: not literal), relative to `cwd` (the `cd` in force there, as
    LaunchCommand.cwd). `body` is the text the file receives: for an unquoted delimiter with its `$VAR` /
    `${VAR}` expanded, the parse module's UNKNOWN marking what the file does not show; `raw` is the body as
    written, starting at `body_span` (column 1 of the row after the command). `body` None: the content is
    not known (a write in some branches only, `cat` of other files, an append to a written file)."""

    path: Optional[str]
    cwd: Optional[ShellArg]
    body: Optional[str]
    raw: str
    body_span: Span
    quoted: bool  # the delimiter was quoted ('EOF', "EOF", \EOF): no expansion
    span: Span  # the command line that writes it


@dataclass
class LaunchCommand:
    span: Span  # the whole logical command, `\` continuations included
    launchers: list[Launcher] = field(default_factory=list)  # outermost first
    env: dict[str, EnvValue] = field(default_factory=dict)
    script: Optional[str] = None
    script_span: Optional[Span] = None
    module: Optional[str] = None  # `-m pkg` / `--module` targets
    cwd: Optional[ShellArg] = None  # the last `cd DIR` before the command (value None: not literal); None: no cd
    script_args: list[ShellArg] = field(default_factory=list)
    # Derived facts; None = unknown, with the reason in `reasons[fact]` where one is known.
    nproc_per_node: Optional[int] = None
    nnodes: Optional[int] = None
    nnodes_range: Optional[tuple[int, int]] = None  # torchrun --nnodes=MIN:MAX
    num_gpus: Optional[int] = None  # deepspeed --num_gpus, or the slots of --include
    world_size: Optional[int] = None
    bind_cores_to_rank: bool = False
    bind_core_list: Optional[str] = None
    master_port: Optional[int] = None
    deepspeed_config_arg: Optional[str] = None
    deepspeed_config_arg_span: Optional[Span] = None
    omp_num_threads: Optional[str] = None  # the literal value the command's env gives
    omp_num_threads_set: bool = False  # set at all (even to a non-literal)
    omp_num_threads_by_launcher: Optional[str] = None  # what the launcher itself sets when unset
    accelerate: Optional[AccelerateFacts] = None
    deepspeed: Optional[DeepSpeedFacts] = None
    mpirun: Optional[MpirunFacts] = None
    srun: Optional[SrunFacts] = None
    reasons: dict[str, str] = field(default_factory=dict)
    # The files heredocs before the command wrote, by heredoc_key(cwd, path): what it reads there.
    heredocs: dict = field(default_factory=dict)
    # The files `source FILE` / `. FILE` read before the command, as written (literal paths only), with the
    # folder the shell was in then: what they export reaches the command too (the linker reads them)
    sourced: tuple = ()

    def launcher(self, kind: str) -> Optional[Launcher]:
        """The first launcher of this kind in the chain, or None."""
        for launcher in self.launchers:
            if launcher.kind == kind:
                return launcher
        return None


@dataclass
class LaunchFile:
    commands: list[LaunchCommand] = field(default_factory=list)
    sbatch: SbatchDirectives = field(default_factory=SbatchDirectives)
    variables: dict[str, str] = field(default_factory=dict)  # literal assignments seen (last wins)
    heredocs: list[HeredocWrite] = field(default_factory=list)  # every file a heredoc writes, in walk order
    # name -> literal value (None: not literal) of what the file leaves exported at its end (for a file
    # another one sources)
    exports: dict = field(default_factory=dict)


def heredoc_key(cwd: Optional[ShellArg], path: Optional[str]) -> Optional[tuple[str, str]]:
    """Where a path names a file, for comparing a heredoc's target with a path a launch reads: (base, the
    normalised path from it), base "/" (absolute), "script" (relative to the launch file's folder) or "." (the
    folder the caller runs it from); None when the path or the folder is not known."""
    if path is None or not path:
        return None
    if os.path.isabs(path):
        return "/", os.path.normpath(path)
    if cwd is None:
        return ".", os.path.normpath(path)
    if cwd.value is None:
        return None
    joined = os.path.normpath(os.path.join(cwd.value, path))
    if os.path.isabs(joined):
        return "/", joined
    return ("script" if cwd.script_relative else "."), joined
