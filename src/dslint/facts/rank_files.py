"""Files each rank writes and reads back under a name of its own: `torch.load(f"queue{rank}.pth")`.

A path that holds the process's rank names a file that rank saved itself, so the tensors it holds go
back to that rank's own GPU. The rank is the global one (`dist.get_rank()`, RANK: values.py), or
the rank in a data/tensor/pipeline-parallel group (`mpu.get_data_parallel_rank()`,
`dist.get_rank(group)`): ranks of one index in that group write their files into folders of their
own (Megatron's `mp_rank_XX/`), or they would overwrite each other's.

The name may be built where it is loaded (`own_rank_file`), or by the callers of the function that
loads it (`rank_file_parameter` names the parameter; each module's summary says which calls pass such
a name, `rank_file_calls`; `callers_pass_rank_files` checks every reader of the function does).
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Optional

from ..sources.names import dotted
from .bindings import semantic_model
from .conditions import exclusive, mentions_rank
from .script import CallSite, ScriptFacts
from .summary import summary_extractor
from .values import is_rank_expression

if TYPE_CHECKING:
    from .setup import Project

_GROUP_RANK = re.compile(r"(^|\.)(get_\w*parallel_rank|get_pg_rank)$")
_RANK_WORD = re.compile(r"^(get_rank|rank|global_rank|get_global_rank|get_pg_rank)$|parallel_rank$")
_FILE_SUFFIX = re.compile(r"""\.(pt|pth|bin|ckpt|th|pkl|tar|safetensors)['"]""")  # a file name the module builds
_DISTRIBUTION_WORDS = ("distributed", "world", "is_initialized", "ddp")


def names_a_rank(model, node: ast.AST) -> bool:
    """Is the node (a part of a path) the process's rank: global, or in a parallel group?"""
    if not isinstance(node, (ast.Call, ast.Name, ast.Attribute)):
        return False
    if is_rank_expression(model, node) == "global":
        return True
    value = model.value_of(node)
    if not isinstance(value, ast.Call):
        return False
    name = model.resolve(value.func) or dotted(value.func) or ""
    if _GROUP_RANK.search(name):
        return True
    return name.endswith("distributed.get_rank") and bool(value.args or value.keywords)  # (a group's rank)


def _ranked(model, expr: ast.AST) -> bool:
    return any(names_a_rank(model, n) for n in ast.walk(expr))


def _names_a_file(expr: ast.AST) -> bool:
    """A cheap first test: a string part (`f"optim_{rank}.pt"`, `"/optim_" + ...`), as a file name has."""
    return any(isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))
               for n in ast.walk(expr))


def own_rank_file(facts: ScriptFacts, site: CallSite) -> bool:
    """Does the path of this torch.load hold the rank, wherever it is bound? A value of the path
    without the rank counts only on the other side of an `if` about being distributed (the
    one-process path)."""
    path = site.argument(0, "f")
    if path is None:
        return False
    model = semantic_model(facts)
    values = model.values_of(path)
    ranked = [v for v in values if _ranked(model, v)]
    if not ranked:
        return False
    places = [facts.context_of(v) for v in ranked]
    for value in values:
        if any(value is r for r in ranked):
            continue
        where = facts.context_of(value)
        if where is None or not any(p is not None and exclusive(where, p) for p in places) or not any(
                mentions_rank(facts, guard.test) or any(w in ast.unparse(guard.test).lower() for w in _DISTRIBUTION_WORDS)
                for guard, _ in where.guards):
            return False
    return True


def rank_file_parameter(facts: ScriptFacts, site: CallSite) -> Optional[tuple]:
    """(parameter, position among the positional ones or None) when the loaded path is a parameter
    of the function the load sits in, bound nowhere else in it."""
    path = site.argument(0, "f")
    function = site.ctx.function
    if not isinstance(path, ast.Name) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    found = semantic_model(facts).reaching(path.id, path)
    if len(found) != 1 or found[0].kind != "parameter" or found[0].node not in _parameters(function):
        return None
    return path.id, found[0].position


def _parameters(function) -> list:
    arguments = function.args
    return arguments.posonlyargs + arguments.args + arguments.kwonlyargs


@summary_extractor("rank_file_calls")
def rank_file_calls(facts: ScriptFacts) -> dict:
    """callee's last name -> (mentions of that name in the module beside its `def`, ((position, keyword),
    ...) of each of its calls that passes a path holding the rank). Only modules that read a rank and
    spell a checkpoint's file suffix have any, and only arguments that name the rank (or a name
    bound to it) are looked into."""
    if "rank" not in facts.text or not _FILE_SUFFIX.search(facts.text):
        return {}
    # First by the words alone (`dist.get_rank()`, `self.rank`, `mpu.get_data_parallel_rank()`, and the
    # names bound to an expression holding one); the bindings are asked only about the arguments left.
    ranks, places = set(), set()
    for site in facts.calls:
        if "rank" in site.attr and _RANK_WORD.search(site.attr):
            ranks.add(id(site.node))
            places.add(id(site.ctx.function))
    for node, ctx in facts.of_type(ast.Attribute):
        if "rank" in node.attr and _RANK_WORD.search(node.attr):
            ranks.add(id(node))
            places.add(id(ctx.function))
    if not ranks:
        return {}
    bound = set()
    for assignment in facts.assignments:  # (in source order: `shard = rank()`, then `path = f"{shard}.pt"`)
        if "." not in assignment.name and id(assignment.ctx.function) in places and (
                id(assignment.value) in ranks or _mentions(assignment.value, ranks, bound)):
            bound.add(assignment.name)
    model = None
    calls: dict = {}
    for site in facts.calls:
        if id(site.ctx.function) not in places:
            continue  # (a name bound to a rank elsewhere is another function's)
        given = [(p, None, a) for p, a in enumerate(site.node.args) if not isinstance(a, ast.Starred)]
        given += [(None, k.arg, k.value) for k in site.node.keywords if k.arg is not None]
        for position, keyword, arg in given:
            if not _mentions(arg, ranks, bound):
                continue
            model = model or semantic_model(facts)
            values = model.values_of(arg)
            if values and all(_names_a_file(v) for v in values) and all(_ranked(model, v) for v in values):
                calls.setdefault(site.attr, []).append((position, keyword))
    return {name: (_mentions_beside_def(facts.text, name), tuple(found)) for name, found in calls.items()}


def _mentions(expr: ast.AST, ranks: set, bound: set) -> bool:
    """Does a path-like expression (a name, an f-string, a `+`, `os.path.join(...)`, `.format(...)`)
    hold a rank node or a name bound to one?"""
    kind = type(expr)
    if kind is ast.Name:
        return expr.id in bound
    if kind is ast.Call:
        if _last(expr.func) not in _PATH_BUILDERS:
            return False
    elif kind is not ast.JoinedStr and kind is not ast.BinOp:
        return False
    return any(id(n) in ranks or (type(n) is ast.Name and n.id in bound) for n in ast.walk(expr))


_PATH_BUILDERS = frozenset(("join", "format", "Path", "str", "joinpath", "abspath", "expanduser"))


def _last(expr: ast.AST) -> str:
    return expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""


def _mentions_beside_def(text: str, name: str) -> int:
    """Occurrences of the name in the text, its `def`s left out (every read of it is one; a comment
    or a longer word holding it counts too, which only makes the answer stricter)."""
    return text.count(name) - text.count(f"def {name}(")


def callers_pass_rank_files(project: "Project", scope: str, parameter: str, position: Optional[int]) -> bool:
    """Does every place in the project that reads the function `scope` ("f" or "Cls.method") call it
    with a path holding the rank for `parameter` (at `position` of the def; a method's callers give
    it one place earlier, `self` being the instance)? At least one such call, and no other read."""
    klass, _, name = scope.rpartition(".")
    if name.startswith("__"):
        return False
    shift = 1 if klass else 0
    calls = 0
    for path, summary in project.scripts.items():
        refs = summary.extra.get("references") if summary is not None else None
        if refs is None:
            return False
        if name not in refs.names:
            continue
        reads, found = summary.extra.get("rank_file_calls", {}).get(name, (0, ()))
        if reads != len(found) or not all(k == parameter or (p is not None and position is not None and p + shift == position)
                                          for p, k in found):
            return False
        calls += len(found)
    return calls > 0
