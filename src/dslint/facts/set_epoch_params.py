"""Which parameter of a function a `.set_epoch(...)` call reaches: `loader.sampler.set_epoch(e)`,
`sampler = getattr(loader, "sampler", None); sampler.set_epoch(e)` in `def begin_epoch(loader, e)`.

A caller that passes its DataLoader (or sampler) for that parameter sets the epoch through it.
"""
from __future__ import annotations

import ast
from typing import Optional

from .bindings import semantic_model


def set_epoch_params(facts, site, params: tuple) -> tuple:
    """The parameters (of `params`) whose value, or an attribute of it, may receive this set_epoch
    call (`s = getattr(a, "sampler") if b is None else b`: both)."""
    func = site.node.func
    if not isinstance(func, ast.Attribute):
        return ()
    model = semantic_model(facts)
    found: list = []
    work, steps = [func.value], 0
    while work and steps < 12:
        steps += 1
        receiver = work.pop()
        if isinstance(receiver, ast.Attribute):
            work.append(receiver.value)
        elif isinstance(receiver, ast.IfExp):
            work += [receiver.body, receiver.orelse]
        elif isinstance(receiver, ast.BoolOp):
            work += receiver.values
        elif _getattr_object(receiver) is not None:
            work.append(_getattr_object(receiver))
        elif isinstance(receiver, ast.Name):
            value = model.assigned_value(receiver)
            if value is None:
                if receiver.id in params and receiver.id not in found:
                    found.append(receiver.id)
            else:
                work.append(value)
    return tuple(found)


def _getattr_object(value: ast.expr) -> Optional[ast.expr]:
    """`getattr(obj, "sampler", ...)`: obj."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" and value.args:
        return value.args[0]
    return None
