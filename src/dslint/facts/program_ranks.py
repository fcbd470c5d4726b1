"""Does a module run as several processes? Asked of the programs it runs in, not of the file.

A helper module (`utils/checkpoint.py`) shows no sign of a distributed job, yet it runs in every
rank of the trainer that imports it. A program runs as several processes when a launch line
starts its entry point with a world of more than one process, or, where no launch line tells
(none, or its size unknown), when the program shows it: the entry's own evidence
(`init_process_group`, DDP, a DistributedSampler, LOCAL_RANK read...), or a project function it
calls that does (`init_distributed_mode()` in `dist_utils.py`). Launch lines that all start one
process outweigh the evidence: that program runs as one. Test modules are never such a program.

A module imported by a multi-rank trainer and by a single-process tool runs in both: it runs as
several processes when at least one of its programs does, and the answer names which.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..sources.names import dotted, is_library, root_name
from .module_summary import call_result_names, project_imports
from .program import ProgramIndex, is_test_module, norm_path

if TYPE_CHECKING:
    from .setup import Project


@dataclass(frozen=True)
class SeveralRanks:
    """A program that runs as several processes, and how dslint knows."""

    entry: str  # display path of the program's entry point
    why: str  # "torchrun starts 8 processes", "wraps the model in DistributedDataParallel"
    related: tuple  # ((path, Span, note), ...) for a finding's `related`
    also_one: bool = False  # another launch line starts the same program as one process


def several_rank_programs(project: "Project", path: str) -> list[SeveralRanks]:
    """The programs `path` runs in that run as several processes (see the module docstring)."""
    from .link import link_setups

    program = project.program
    launches: dict = {}
    for setup in link_setups(project):
        if setup.launch_path is not None:
            launches.setdefault(norm_path(setup.script_path), []).append(setup)
    found = []
    for entry in program.programs_of(path):
        if is_test_module(entry):
            continue
        display = program.display.get(entry, entry)
        setups = launches.get(entry, [])
        several = [s for s in setups if (s.world_size or s.procs_per_node or 0) > 1]
        if several:
            setup = several[0]
            count = setup.world_size or f"{setup.procs_per_node} per node"
            why = f"{setup.spawner_kind or setup.launcher} starts {count} processes"
            found.append(SeveralRanks(display, why, tuple(setup.launch_related(f"{why} of {display}")),
                                      also_one=any(_one_process(s) for s in setups)))
            continue
        if setups and all(_one_process(s) for s in setups):
            continue  # every launch line starts one process
        evidence = program.program_evidence(entry)
        if evidence is not None:
            what, where, span = evidence
            found.append(SeveralRanks(display, what, ((where, span, f"{display} runs as several processes: {what}"),)))
    return found


def _one_process(setup) -> bool:
    """The launch line starts one process: a world of one, or `python train.py` of a script that
    starts no processes itself (no mp.spawn, no Lightning Trainer that may)."""
    if setup.world_size == 1:
        return True
    return setup.world_size is None and setup.spawner == "none" and setup.lightning is None \
        and not setup.facts.spawns and setup.accelerate is None


def helper_rank_call(facts, model, expr: Optional[ast.AST]) -> Optional[tuple]:
    """(the local name called, the unpack index, the field name or None) when `expr` (through `int()`
    and names bound once) holds what a call of a function imported from a project module returns
    (`rank = dist_utils.get_rank()`, `rank, world = init()`, `env.rank` of `env = DistEnv.from_env()`):
    which rank that is, the program tells
    (`helper_rank`). None for anything else, a library's function included."""
    if expr is None or not _may_hold_a_call_result(facts, expr):
        return None
    value, index = model.value_of(expr), None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and isinstance(
            built := model.value_of(value.value), ast.Call):  # `env.rank` of `env = DistEnv.from_env()`
        value, index = built, value.attr
    elif isinstance(value, (ast.Name, ast.Attribute)):
        binding = model.binding_of(value)
        if binding is None or binding.kind != "assignment" or not isinstance(binding.value, ast.Call) \
                or binding.index is None or len(binding.index) != 1 or binding.index[0] < 0:
            return None
        value, index = binding.value, binding.index[0]
    elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and type(value.slice.value) is int and value.slice.value >= 0:  # `init()[0]`
        value, index = value.value, value.slice.value
    if not isinstance(value, ast.Call):
        return None
    root, local = root_name(value.func), dotted(value.func)
    bound = model.binding_of(root) if root is not None else None
    if local is None or bound is None or bound.kind not in ("import", "from-import") \
            or is_library(model.resolve(value.func) or bound.qualname or ""):
        return None
    return local, index


def helper_rank(program: ProgramIndex, importer: str, local: str, index: Optional[int]) -> Optional[tuple]:
    """(kind "global" | "local", Symbol) of the rank that the project function `importer` calls as
    `local` returns (element `index` of the tuple it returns, or its whole value for None); None when
    it is no project function or what it returns is not known to be a rank."""
    found = program.function_called(importer, local)
    if found is None or found[0].function is None:
        return None
    symbol, summary = found
    kind = next((kind for position, kind in summary.returns_rank if position == index), None)
    return (kind, symbol) if kind is not None else None


def _may_hold_a_call_result(facts, expr: ast.AST) -> bool:
    """A cheap first filter: a name of `call_result_names`, or a call (maybe indexed, or through `int()`)
    whose callee's first name is a project import."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "int" and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, (ast.Name, ast.Attribute)):  # (`self.rank = dist_utils.get_rank()` too)
        names = call_result_names(facts)
        return dotted(expr) in names or isinstance(expr, ast.Attribute) and dotted(expr.value) in names
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    root = root_name(expr.func) if isinstance(expr, ast.Call) else None
    return root is not None and root.id in project_imports(facts)
