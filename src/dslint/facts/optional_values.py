"""Values that are an object or None: `sampler = DistributedSampler(ds) if dist.is_initialized() else None`.

Where the object exists (the run is distributed), the name holds it; a rule about that object asks
about the arm that builds it. Code that uses the name must then allow for None, so a fix that calls
a method of it is not offered (`optional_arm` tells the rule which it is).
"""
from __future__ import annotations

import ast
from typing import Optional

from .script import Context, ScriptFacts, assigned_name


def _is_none(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def present_arm(expr: ast.AST) -> ast.AST:
    """`x if test else None` (or `None if test else x`) → x; any other expression itself."""
    if isinstance(expr, ast.IfExp):
        if _is_none(expr.orelse) and not _is_none(expr.body):
            return expr.body
        if _is_none(expr.body) and not _is_none(expr.orelse):
            return expr.orelse
    return expr


def optional_arm(facts: ScriptFacts, node: ast.AST, ctx: Optional[Context]) -> Optional[ast.IfExp]:
    """The `... if ... else None` whose present arm is `node` (a call's context's parent), or None."""
    parent = ctx.parent if ctx is not None else None
    if isinstance(parent, ast.IfExp) and present_arm(parent) is node:
        return parent
    return None


def bound_name(facts: ScriptFacts, node: ast.AST, ctx: Optional[Context]) -> tuple[Optional[str], bool]:
    """(the name a call's value is assigned to, whether it may hold None instead): `s = Sampler(ds)`
    → ("s", False); `s = Sampler(ds) if distributed else None` → ("s", True); else (None, False)."""
    name = assigned_name(facts, node, ctx)
    if name is not None:
        return name, False
    optional = optional_arm(facts, node, ctx)
    if optional is not None:
        name = assigned_name(facts, optional, facts.context_of(optional))
        if name is not None:
            return name, True
    return None, False
