"""Callables that build a torch optimizer: what `deepspeed.initialize(optimizer=<callable>)` runs.

DeepSpeed accepts a callable for `optimizer=` and calls it with the model's parameters
(runtime/engine.py `_configure_optimizer`: `basic_optimizer = client_optimizer(model_parameters)`), so
`optimizer=lambda p: torch.optim.AdamW(p, lr=1e-4)`, a def returning `torch.optim.AdamW(params)`,
`functools.partial(torch.optim.AdamW, lr=1e-4)` and a factory returning one of these
(`optimizer=optimizer_factory(lr)`) give DeepSpeed a client torch optimizer as surely as the constructor.

`callable_optimizer` reads a value of the script; `optimizer_builders` states, per top-level function of a
module, the builder it returns (the linker reads it at the script's call of an imported factory).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .script import own_returns
from .summary import summary_extractor

_PARTIALS = ("functools.partial",)
PARTIAL_NAME = "partial-name"  # an `optimizer_builders` entry that is a module-level partial, not a factory


@dataclass(frozen=True)
class BuiltOptimizer:
    qualname: str  # torch.optim.AdamW
    node: ast.AST  # the constructor call, or the `partial(...)` call
    keywords: tuple  # keyword names given to it
    how: str  # "lambda" | "def" | "partial"


def is_torch_optimizer(qualname: Optional[str]) -> bool:
    """torch.optim.<Class> (not torch.optim.lr_scheduler.X)."""
    return bool(qualname) and qualname.startswith("torch.optim.") and qualname.count(".") == 2 \
        and qualname.rsplit(".", 1)[1][:1].isupper()


def _constructor(model, expr: ast.AST) -> Optional[ast.Call]:
    """The torch.optim constructor call `expr` is (through names bound once)."""
    value = model.value_of(expr)
    if isinstance(value, ast.Call) and is_torch_optimizer(model.resolve(value.func)):
        return value
    return None


def _every_return(function: ast.AST, read, key=lambda found: found.qualname) -> Optional[object]:
    """`read(value)` of every return of `function` when they all give one of the same `key` and the body
    ends in a return (a body that may fall off its end returns None); else None."""
    if not isinstance(function, (ast.FunctionDef, ast.Lambda)):
        return None
    if isinstance(function, ast.Lambda):
        return read(function.body)
    returns = own_returns(function)
    if not returns or not function.body or not isinstance(function.body[-1], ast.Return) or \
            any(r.value is None for r in returns):
        return None
    found = [read(r.value) for r in returns]
    if any(f is None for f in found) or len({key(f) for f in found}) != 1:
        return None
    return found[-1]


def _local_def(model, expr: ast.AST) -> Optional[ast.AST]:
    """The def (or lambda) a Name of this module is bound to, once."""
    if isinstance(expr, ast.Lambda):
        return expr
    if not isinstance(expr, ast.Name):
        return None
    found = model.reaching(expr.id, expr)
    if len(found) != 1:
        return None
    binding = found[0]
    if binding.kind == "def" and isinstance(binding.node, ast.FunctionDef):
        return binding.node
    value = model.value_of(expr)
    return value if isinstance(value, ast.Lambda) else None


def callable_optimizer(model, expr: Optional[ast.AST], depth: int = 0) -> Optional[BuiltOptimizer]:
    """The torch optimizer that calling `expr` builds: a lambda or def of this module returning the
    constructor, `functools.partial(torch.optim.X, ...)`, or a call of a def of this module that returns one
    of these (a factory); None when it is not one or dslint cannot tell."""
    if expr is None or depth > 3:
        return None
    value = model.value_of(expr) if isinstance(expr, ast.Name) else expr
    if isinstance(value, ast.Call):
        name = model.resolve(value.func)
        if name in _PARTIALS and value.args and is_torch_optimizer(model.resolve(value.args[0])):
            return BuiltOptimizer(model.resolve(value.args[0]), value, tuple(k.arg for k in value.keywords if k.arg),
                                  "partial")
        factory = _local_def(model, value.func) if isinstance(value.func, ast.Name) else None
        if factory is not None:
            return _every_return(factory, lambda v: callable_optimizer(model, v, depth + 1))
        return None
    function = _local_def(model, value) or _local_def(model, expr)
    if function is None:
        return None

    def built(returned):
        call = _constructor(model, returned)
        if call is None:
            return None
        return BuiltOptimizer(model.resolve(call.func), call, tuple(k.arg for k in call.keywords if k.arg),
                              "lambda" if isinstance(function, ast.Lambda) else "def")

    return _every_return(function, built)


def returned_optimizer(model, expr: Optional[ast.AST]) -> Optional[ast.Call]:
    """The torch.optim constructor a call of a def of this module returns on every path
    (`optimizer=make_optimizer(model)` with `def make_optimizer(m): return torch.optim.AdamW(...)`)."""
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Name):
        return None
    function = _local_def(model, expr.func)
    if not isinstance(function, ast.FunctionDef):
        return None
    return _every_return(function, lambda v: _constructor(model, v), key=lambda call: model.resolve(call.func))


@summary_extractor("optimizer_builders")
def optimizer_builders(facts) -> dict:
    """function name -> (torch.optim class, Span of the constructor (or partial), keywords, how) for each
    top-level function of the module whose every return gives a callable that builds that optimizer
    (`def optimizer_factory(lr): def build(p): return torch.optim.AdamW(p, lr=lr); return build`), and for
    each module-level name bound once to `functools.partial(torch.optim.X, ...)` (how: PARTIAL_NAME)."""
    rows = [site.node.lineno for site in [*facts.calls_with_prefix("torch.optim."), *facts.calls_to(*_PARTIALS)]]
    if not rows:
        return {}
    from .bindings import semantic_model

    model = semantic_model(facts)
    out = {}
    for stmt in facts.tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and stmt.lineno in rows:
            # `make_optimizer = functools.partial(torch.optim.AdamW, lr=1e-4)`: called with the parameters
            # (or handed to DeepSpeed, which calls it) it builds that optimizer
            found = callable_optimizer(model, stmt.value)
            if found is not None and found.how == "partial" and len(model.own_scope(facts.tree).bindings.get(
                    stmt.targets[0].id, ())) == 1:
                out[stmt.targets[0].id] = (found.qualname, facts.lines.span_of_node(found.node), found.keywords,
                                           PARTIAL_NAME)
            continue
        if not isinstance(stmt, ast.FunctionDef) or not any(stmt.lineno <= row <= stmt.end_lineno for row in rows):
            continue
        found = _every_return(stmt, lambda v: callable_optimizer(model, v))
        if found is not None:
            out[stmt.name] = (found.qualname, facts.lines.span_of_node(found.node), found.keywords, found.how)
    return out



def imported_builder(project, importer: str, local: str) -> Optional[tuple]:
    """(display path of the defining module, its `optimizer_builders` entry) of the function the dotted
    `local` of `importer` names through an import; None otherwise."""
    from .imported_extras import imported_extra

    return imported_extra(project, importer, local, "optimizer_builders")
