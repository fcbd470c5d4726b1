"""Small helpers shared by the rules: literals, rank conditions, loops, names."""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..facts.script import Context, ScriptFacts, literal  # noqa: F401 (re-exported for rules)

RANK_WORDS = re.compile(r"(^|_)(local_?rank|global_?rank|rank|is_main_process|is_local_main_process|is_global_zero|"
                        r"is_rank_zero|is_world_process_zero|is_local_process_zero|main_process|master_process|"
                        r"is_master|is_main|get_rank|local_process_index|process_index)($|_)", re.IGNORECASE)


def mentions_rank(expr: ast.AST) -> bool:
    """Does the expression read a rank (variable, attribute or call)?"""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and RANK_WORDS.search(node.id):
            return True
        if isinstance(node, ast.Attribute) and RANK_WORDS.search(node.attr):
            return True
        if isinstance(node, ast.Constant) and node.value in ("RANK", "LOCAL_RANK"):
            return True
    return False


def rank_guard(ctx: Context) -> Optional[ast.If]:
    """The innermost `if` around the node whose condition depends on the rank."""
    for node, _ in reversed(ctx.guards):
        if mentions_rank(node.test):
            return node
    return None


def iter_target(expr: ast.AST) -> ast.AST:
    """`enumerate(loader)`, `tqdm(loader, ...)`, `zip(loader, ...)` → `loader`."""
    while isinstance(expr, ast.Call) and expr.args and isinstance(expr.func, (ast.Name, ast.Attribute)):
        name = expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr
        if name in ("enumerate", "tqdm", "zip", "iter", "track", "progress_bar"):
            expr = expr.args[0]
        else:
            break
    return expr


def enclosing_function_name(ctx: Context) -> str:
    func = ctx.function
    return getattr(func, "name", "") if func is not None else ""


def assigned_name(facts: ScriptFacts, node: ast.AST) -> Optional[str]:
    """The name a call's value is assigned to (`loader = DataLoader(...)` → `loader`)."""
    ctx = facts.context_of(node)
    parent = ctx.parent if ctx else None
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
            from ..sources.names import dotted

            return dotted(targets[0])
    return None


def is_test_file(path: str) -> bool:
    """pytest files: their multi-process evidence belongs to single tests, not to the whole file."""
    from pathlib import PurePath

    parts = PurePath(path).parts
    name = parts[-1] if parts else ""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or "tests" in parts[:-1]
