"""Weights read from a wrapper's own module outside a gather: `x.module.state_dict()`,
`x.module.save_pretrained(dir)`. Under ZeRO-3 a DeepSpeed engine's module holds 0-size
partitions, so what is read there is empty.

Whether `x` is such an engine is a question for whoever knows its value: this module (a name
bound by `deepspeed.initialize` here), or, when `x` is a parameter of a top-level function, each
call of that function (`save_weights(engine, dir)`: the argument the caller passes; across
modules the project phase asks the callers' summaries, see `FunctionSummary.unsharded_reads`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..sources.names import dotted
from .script import ScriptFacts

GATHERING_CONTEXTS = ("GatheredParameters", "summon_full_params")


@dataclass(frozen=True)
class ModuleRead:
    node: ast.Call
    holder: str  # the dotted text in front of `.module` (`engine`, `self.model_engine`)
    what: str  # "engine.module.state_dict()", for messages
    param: Optional[str] = None  # `holder` is this parameter of the enclosing top-level function
    function: Optional[str] = None  # that function's name
    position: Optional[int] = None  # the parameter's position (0-based)


def gathered(facts: ScriptFacts, node: ast.AST) -> bool:
    """Inside `with deepspeed.zero.GatheredParameters(...)` or FSDP's `summon_full_params(...)`."""
    where = facts.context_of(node)
    for block in where.withs if where else ():
        for item in block.items:
            expr = item.context_expr
            target = expr.func if isinstance(expr, ast.Call) else expr
            if (dotted(target) or "").rsplit(".", 1)[-1] in GATHERING_CONTEXTS:
                return True
    return False


# Attributes of an HF model that hold no parameters: their save_pretrained writes a JSON or vocabulary file.
_NOT_WEIGHTS = frozenset(("config", "generation_config", "peft_config", "tokenizer", "processor", "image_processor"))


def module_reads(facts: ScriptFacts) -> list[ModuleRead]:
    """Every `x.module.state_dict()` (no positional arguments) and `x.module.save_pretrained(...)` (no
    `state_dict=` given) outside a gather, with the parameter `x` is when it is one (cached)."""
    return facts.derived("zero3_module_reads", _module_reads)


def _module_reads(facts: ScriptFacts) -> list[ModuleRead]:
    found = []
    for site in facts.method_calls("state_dict"):
        if not site.node.args:
            found.append(_read(facts, site, "state_dict()"))
    for site in facts.method_calls("save_pretrained"):
        if site.keyword("state_dict") is None and not site.has_star_kwargs:
            found.append(_read(facts, site, "save_pretrained(...)"))
    return [read for read in found if read is not None]


def _read(facts: ScriptFacts, site, call: str) -> Optional[ModuleRead]:
    func = site.node.func
    if not isinstance(func, ast.Attribute):
        return None
    text = dotted(func.value)
    parts = text.split(".") if text else []
    if "module" not in parts[1:] or gathered(facts, site.node):
        return None
    if _NOT_WEIGHTS & set(parts[parts.index("module", 1) + 1:]):
        return None  # `engine.module.config.save_pretrained(dir)`: the config's JSON, no parameters
    holder = ".".join(parts[:parts.index("module", 1)])
    what = f"{text}.{call}"
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    function = site.ctx.function
    if not isinstance(root, ast.Name) or root.id != holder or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or facts.functions.get(function.name) is not function:
        return ModuleRead(site.node, holder, what)
    from .bindings import semantic_model

    binding = semantic_model(facts).binding_of(root)
    if binding is None or binding.kind != "parameter" or binding.scope.node is not function:
        return ModuleRead(site.node, holder, what)
    return ModuleRead(site.node, holder, what, holder, function.name, binding.position)
