"""How a worker count written as an expression scales with the machine's CPU count.

`os.cpu_count()`, `os.cpu_count() - 1`, `max(1, os.cpu_count() - 2)` and `os.cpu_count() or 1`
grow with the machine: one rank per node already takes every core. `min(4, os.cpu_count())` is at
most 4, whatever the machine (a literal count, checked against the cores when they are known).
A share of it (`os.cpu_count() // 8`, `// world_size`, `* 0.5`) may be sized per rank: unknown.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional, Union

from ..sources.names import dotted

CPU_COUNTS = ("os.cpu_count", "multiprocessing.cpu_count", "psutil.cpu_count")  # the machine's, not the rank's
MACHINE = "machine"

Scale = Union[int, float, str, None]  # a number it cannot exceed, MACHINE, or None (unknown)


def cpu_scaling(expr: ast.AST, callee_name: Callable[[ast.Call], Optional[str]]) -> tuple[bool, Optional[int]]:
    """(whether `expr` grows with the machine's CPU count, the int it never exceeds where a `min`
    with a literal bounds it)."""
    found = _scale(expr, callee_name, 0)
    if found == MACHINE:
        return True, None
    bounded = isinstance(found, (int, float)) and _mentions_cpus(expr, callee_name)
    return False, int(found) if bounded else None


def _mentions_cpus(expr: ast.AST, callee_name) -> bool:
    return any(isinstance(n, ast.Call) and (callee_name(n) or "") in CPU_COUNTS for n in ast.walk(expr))


def _scale(expr: ast.AST, callee_name, depth: int) -> Scale:
    if depth > 8:
        return None
    if isinstance(expr, ast.Constant):
        value = expr.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    inner = lambda e: _scale(e, callee_name, depth + 1)  # noqa: E731
    if isinstance(expr, ast.Call):
        name = callee_name(expr) or (expr.func.id if isinstance(expr.func, ast.Name) else "")
        if name in CPU_COUNTS:
            return MACHINE
        if expr.keywords:
            return None
        parts = [inner(a) for a in expr.args if not isinstance(a, ast.Starred)]
        if len(parts) != len(expr.args) or not parts:
            return None
        if name == "int" and len(parts) == 1:
            return parts[0]
        if name == "min":
            bounds = [p for p in parts if isinstance(p, (int, float))]
            # (min(k, anything) is at most k)
            return min(bounds) if bounds else MACHINE if all(p == MACHINE for p in parts) else None
        if name == "max" and None not in parts:
            return MACHINE if MACHINE in parts else max(parts)
        return None
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        return inner(expr.values[0])  # `os.cpu_count() or 1`: None only where the count is unknown
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = inner(expr.left), inner(expr.right)
        if MACHINE not in (left, right) or None in (left, right):
            return None  # (two numbers: `_literal` read them already)
        if isinstance(expr.op, ast.Mult):  # (`2 * os.cpu_count()`; `* 0.5` is like `// 2`)
            return MACHINE if all(p == MACHINE or p >= 1 for p in (left, right)) else None
        return MACHINE if left == MACHINE or isinstance(expr.op, ast.Add) else None  # (not `64 - cpu_count()`)
    if isinstance(expr, ast.IfExp):
        body, orelse = inner(expr.body), inner(expr.orelse)
        return MACHINE if body == orelse == MACHINE else None
    return None


def machine_field_default(value: ast.AST, callee_name: Callable[[ast.Call], Optional[str]],
                          resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """Is a class field's default the machine's CPU count: `workers: int = os.cpu_count()`,
    `field(default_factory=os.cpu_count)`, `field(default_factory=lambda: os.cpu_count() - 1)`?"""
    if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] in ("field", "Field"):
        factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
        default = next((k.value for k in value.keywords if k.arg == "default"), None)
        if isinstance(factory, ast.Lambda):
            return cpu_scaling(factory.body, callee_name)[0]
        if factory is not None:
            return resolve(factory) in CPU_COUNTS
        return default is not None and cpu_scaling(default, callee_name)[0]
    return cpu_scaling(value, callee_name)[0]
