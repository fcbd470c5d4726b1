"""A function that trains a model it is handed the way one trains a plain module: it calls the
parameter (`model(batch)`), then `loss.backward()` and `optimizer.step()` on another parameter, and
never `model.backward(...)` / `model.step()`. Handed a DeepSpeed engine and its optimizer, it
bypasses the engine (no gradient reduction bookkeeping, no loss scaling): what DSL308 asks of the
calls that pass one (in this module, or through the program for a helper of another module).

`engine_bypasses(facts)` is built once per module, only when it has a `.backward()` or `.step()`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from .bindings import SemanticModel, semantic_model
from .script import ScriptFacts


@dataclass
class EngineBypass:
    """What a module-level function does to parameters that may hold an engine and its optimizer."""

    function: ast.AST
    models: dict = field(default_factory=dict)  # parameter called as the model -> its Binding
    backwards: list = field(default_factory=list)  # CallSites of the plain `x.backward()` after such a forward
    steps: dict = field(default_factory=dict)  # parameter -> CallSites of its `.step()`
    bindings: dict = field(default_factory=dict)  # parameter name -> Binding

    def summary(self) -> tuple:
        """Plain data for the module summary: (model parameters, row of the first plain backward
        (0: none), ((parameter, row of its first step), ...))."""
        return (tuple(self.models), self.backwards[0].node.lineno if self.backwards else 0,
                tuple((name, sites[0].node.lineno) for name, sites in self.steps.items()))


def engine_bypasses(facts: ScriptFacts) -> dict:
    """Function name -> EngineBypass, for the module-level functions that would bypass an engine
    handed to one of their parameters."""
    if not facts.method_calls("backward") and not facts.method_calls("step"):
        return {}
    return facts.derived("engine_bypasses", _build)


def _build(facts: ScriptFacts) -> dict:
    model = semantic_model(facts)
    by_function: dict = {}
    for site in (*facts.method_calls("backward"), *facts.method_calls("step")):
        function = site.ctx.function
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and facts.functions.get(function.name) is function:
            by_function.setdefault(id(function), (function, []))[1].append(site)
    out = {}
    for function, sites in by_function.values():
        found = _bypass(model, function, sites)
        if found is not None:
            out[function.name] = found
    return out


def _parameter(model: SemanticModel, node: Optional[ast.AST], params: dict) -> Optional[str]:
    """The parameter of the function (by its one reaching binding) that `node` reads, or None."""
    if not isinstance(node, ast.Name) or node.id not in params:
        return None
    return node.id if model.binding_of(node) is params[node.id] else None


def _called_parameters(model: SemanticModel, function: ast.AST, params: dict) -> dict:
    """The parameters the function calls (`p(x)`, `p.forward(x)`) where their own binding holds them."""
    found = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "forward":
                func = func.value
            name = _parameter(model, func, params)
            if name is not None:
                found[name] = params[name]
    return found


def _bypass(model: SemanticModel, function: ast.AST, sites: list) -> Optional[EngineBypass]:
    params = {name: b for name, bindings in model.own_scope(function).bindings.items()
              for b in bindings if b.kind == "parameter" and (b.position is not None or name in _kwonly(function))}
    if not params:
        return None
    found = EngineBypass(function, bindings=params)
    plain = []  # `loss.backward()` on something that is no parameter
    for site in sites:
        receiver = site.node.func.value if isinstance(site.node.func, ast.Attribute) else None
        param = _parameter(model, receiver, params)
        if param is not None:
            if site.attr == "backward":
                return None  # it drives a parameter as an engine (`model.backward(loss)`): it knows what it is given
            if not site.node.args and not site.node.keywords:
                found.steps.setdefault(param, []).append(site)
        elif site.attr == "backward" and site.qualname is None and isinstance(receiver, (ast.Name, ast.Attribute, ast.Call)):
            plain.append(site)
    if not plain and not found.steps:
        return None  # (cheap: most functions of a module get here)
    found.models = _called_parameters(model, function, params)
    if set(found.steps) & set(found.models):
        return None  # `model.step()` on the parameter it calls: the engine's own
    found.backwards = plain if found.models else []
    if not found.backwards and not found.steps:
        return None
    return found


def _kwonly(function: ast.AST) -> set:
    return {a.arg for a in function.args.kwonlyargs}
