"""Helpers for the placement (DSL1xx) and wrapping (DSL3xx) rules: what touches CUDA, which
names hold a DDP wrapper or a DeepSpeed engine, and following a value a short way."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..facts.script import ScriptFacts
from ..sources.names import dotted

def single_assignment(facts: ScriptFacts, name: str, function) -> Optional[ast.expr]:
    """The value of `name` when it is assigned exactly once in that scope."""
    found = facts.assignments_to(name, function)
    if len(found) == 1:
        return found[0].value
    return None


def names_bound_to(facts: ScriptFacts, *qualnames: str) -> dict[str, list]:
    """Names (and `self.x`) assigned the result of one of these calls: name -> [Assignment]."""
    out: dict[str, list] = {}
    for a in facts.assignments:
        value = a.value
        if isinstance(value, ast.Call) and facts.resolve(value.func) in qualnames and isinstance(a.node, (ast.Assign, ast.AnnAssign)):
            targets = a.node.targets if isinstance(a.node, ast.Assign) else [a.node.target]
            if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
                out.setdefault(a.name, []).append(a)
    return out


def unpacked(facts: ScriptFacts, qualname: str, index: int) -> dict[str, tuple]:
    """Names bound to element `index` of a tuple-returning call: `engine, opt, _, _ = deepspeed.initialize(...)`."""
    out: dict[str, tuple] = {}
    for node, ctx in facts.of_type(ast.Assign):
        value = node.value
        if not (isinstance(value, ast.Call) and facts.resolve(value.func) == qualname):
            continue
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) > index:
                name = dotted(target.elts[index])
                if name and name != "_":
                    out[name] = (node, ctx)
    return out


def loads_of(facts: ScriptFacts, name: str, function) -> Iterator[ast.AST]:
    """Every read of a dotted `name` (`llm`, `self.model`) in `function` (the module when None)."""
    for node in ast.walk(function if function is not None else facts.tree):
        if isinstance(node, ast.Name):
            if node.id == name and isinstance(node.ctx, ast.Load):
                yield node
        elif isinstance(node, ast.Attribute) and "." in name and isinstance(node.ctx, ast.Load) and dotted(node) == name:
            yield node


def parent_map(root: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents
