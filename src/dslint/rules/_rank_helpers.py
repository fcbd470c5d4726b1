"""Which ranks reach a statement: rank conditions that select a subset of the ranks.

`if rank == 0`, `if accelerator.is_main_process`, `@rank_zero_only`, `if not is_master: return`
all let only some ranks through. `if local_rank != -1` (distributed or not: every rank agrees)
and `if rank in group_ranks` (membership of a sub-group, whose collectives are legitimate) do not
count: they are not a reason for a hang.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from ..facts.script import ScriptFacts
from ._helpers import literal, mentions_rank

# Names that are true on the main process only.
_MAIN_WORDS = re.compile(r"(^|_)(is_main_process|is_local_main_process|is_global_zero|is_rank_zero|rank_zero|rank0|is_rank0|"
                         r"is_world_process_zero|is_local_process_zero|main_process|master_process|master|is_master|"
                         r"is_main|is_chief|is_leader|is_rank_0|rank_0|is_master_process|is_local_master|local_master)($|_)", re.IGNORECASE)
# A rank that is not a process's: a LoRA rank, a matrix rank.
_NOT_A_PROCESS_RANK = re.compile(r"lora|low_rank|matrix_rank|rank_r\b|num_ranks|n_ranks", re.IGNORECASE)
# Decorators that run the function on one process only.
_RANK_ONLY_DECORATORS = ("rank_zero_only", "on_main_process", "on_local_main_process", "main_process_only",
                         "on_last_process", "master_only", "main_only")


@dataclass(frozen=True)
class RankGate:
    """Why only some ranks reach a node: the condition's node and a short description."""

    node: ast.AST  # the If, the decorator, or the early-return If
    description: str
    if_node: Optional[ast.If] = None  # the enclosing If when the gate is a branch
    in_body: bool = True


def _flat_constants(node: ast.AST) -> Optional[list]:
    value = literal(node)
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if value is None and not (isinstance(node, ast.Constant) and node.value is None):
        return None
    return [value]


def selects_some_ranks(test: ast.AST) -> bool:
    """Is this condition true on some ranks and false on others of one distributed job?"""
    if isinstance(test, ast.BoolOp):
        return any(selects_some_ranks(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return selects_some_ranks(test.operand)
    if isinstance(test, ast.Compare):
        sides = [test.left, *test.comparators]
        ranked = [s for s in sides if (mentions_rank(s) and not _NOT_A_PROCESS_RANK.search(ast.unparse(s))) or _names_main(s)]
        if not ranked:
            return False
        others = [s for s in sides if s not in ranked]
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in test.ops):
            if any(_flat_constants(o) is None for o in others):
                return False  # `rank in group_ranks`: membership of a sub-group
        constants = []
        for other in others:
            flat = _flat_constants(other)
            if flat is None:
                if isinstance(other, ast.Call) or isinstance(other, (ast.Name, ast.Attribute)):
                    return not _is_world_size(other)
                return False
            constants += flat
        if constants and all(c == -1 or c is None for c in constants):
            return False  # `local_rank != -1`: distributed or not, every rank agrees
        if constants and all(isinstance(c, bool) for c in constants):
            return any(_names_main(s) for s in ranked)
        return True
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call)):
        return _names_main(test) or _bare_rank(test)
    return False


def _is_world_size(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return "world" in text or "size" in text or "num_" in text


def _callee_or_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _names_main(node: ast.AST) -> bool:
    return bool(_MAIN_WORDS.search(_callee_or_name(node)))


def _bare_rank(node: ast.AST) -> bool:
    """`if rank:` / `if dist.get_rank():` — true on every rank but 0."""
    name = _callee_or_name(node)
    return name in ("rank", "local_rank", "global_rank", "get_rank", "process_index", "local_process_index")


def is_pure_rank_test(test: ast.AST) -> bool:
    """Does the condition read nothing but the rank (so removing it changes only who runs the body)?"""
    if isinstance(test, ast.BoolOp):
        return all(is_pure_rank_test(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return is_pure_rank_test(test.operand)
    if isinstance(test, ast.Compare):
        return selects_some_ranks(test) and all(
            mentions_rank(s) or _names_main(s) or _flat_constants(s) is not None for s in [test.left, *test.comparators])
    if isinstance(test, ast.Call) and test.args:
        return False
    return selects_some_ranks(test)


def rank_only_decorator(facts: ScriptFacts, function: ast.AST) -> Optional[ast.AST]:
    """The decorator that makes `function` run on one rank only (`@rank_zero_only`), if any."""
    for dec in getattr(function, "decorator_list", ()):
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = facts.resolve(target) or ""
        last = name.rsplit(".", 1)[-1] if name else _callee_or_name(target)
        if last in _RANK_ONLY_DECORATORS:
            return dec
    return None


def _names_sharded_backend(test: ast.AST) -> bool:
    """`if is_main_process or distributed_type == DistributedType.DEEPSPEED`: the author let the shards through."""
    text = ast.unparse(test).lower()
    return "deepspeed" in text or "fsdp" in text or "distributed_type" in text


def _ends_in_exit(body: list) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def rank_gate(facts: ScriptFacts, node: ast.AST) -> Optional[RankGate]:
    """The innermost reason why only some ranks reach `node`, or None when every rank may."""
    where = facts.context_of(node)
    if where is None:
        return None
    for guard, in_body in reversed(where.guards):
        if selects_some_ranks(guard.test) and not _names_sharded_backend(guard.test):
            return RankGate(guard, f"`if {ast.unparse(guard.test)}` (line {guard.lineno})", guard, in_body)
    function = where.function
    if function is None or isinstance(function, ast.Lambda):
        return None
    decorator = rank_only_decorator(facts, function)
    if decorator is not None:
        return RankGate(decorator, f"`@{ast.unparse(decorator)}` on {function.name}() (line {decorator.lineno})")
    line = getattr(node, "lineno", 0)
    for stmt in function.body:
        if stmt.lineno >= line:
            break
        if isinstance(stmt, ast.If) and selects_some_ranks(stmt.test) and _ends_in_exit(stmt.body) and not stmt.orelse:
            return RankGate(stmt, f"`if {ast.unparse(stmt.test)}: return` (line {stmt.lineno}) before it")
    return None
