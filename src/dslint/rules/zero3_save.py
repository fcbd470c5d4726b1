"""DSL503: a ZeRO-3 model's weights saved from its (partitioned) module without gathering them.

Needs the linked DeepSpeed config (stage 3), so the script side is a summary extractor and the
rule is a setup rule.
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..facts.link import link_setups
from ..facts.script import ScriptFacts
from ..facts.summary import summary_extractor
from ..model import Severity
from ..sources.names import dotted
from .context import SetupContext
from .registry import Report, setup_rule

_GATHERING_CONTEXTS = ("GatheredParameters", "summon_full_params")


def _engines(facts: ScriptFacts) -> set[str]:
    names = set()
    for site in facts.calls_to("deepspeed.initialize"):
        parent = site.ctx.parent
        if isinstance(parent, ast.Assign) and parent.value is site.node:
            for target in parent.targets:
                first = target.elts[0] if isinstance(target, (ast.Tuple, ast.List)) and target.elts else target
                if dotted(first):
                    names.add(dotted(first))
    return names


def _gathered(facts: ScriptFacts, node: ast.AST) -> bool:
    where = facts.context_of(node)
    for block in where.withs if where else ():
        for item in block.items:
            expr = item.context_expr
            target = expr.func if isinstance(expr, ast.Call) else expr
            if (dotted(target) or "").rsplit(".", 1)[-1] in _GATHERING_CONTEXTS:
                return True
    return False


def _module_of_engine(expr: Optional[ast.AST], engines: set[str]) -> Optional[str]:
    """`engine.module` (or `model_engine.module.module`) for a DeepSpeed engine → its dotted text."""
    name = dotted(expr) if expr is not None else None
    if not name or ".module" not in name:
        return None
    base = name.split(".module", 1)[0]
    return name if base in engines else None


@summary_extractor("zero3_unsharded_saves")
def zero3_unsharded_saves(facts: ScriptFacts) -> list:
    """(span, what) for weights read from a DeepSpeed engine's module without a gather around them."""
    if not facts.uses("deepspeed"):
        return []
    engines = _engines(facts)
    if not engines:
        return []
    found = []
    for site in facts.method_calls("state_dict"):
        module = _module_of_engine(site.node.func.value if isinstance(site.node.func, ast.Attribute) else None, engines)
        if module and not site.node.args and not _gathered(facts, site.node):
            found.append((facts.lines.span_of_node(site.node), f"{module}.state_dict()"))
    for site in facts.method_calls("save_pretrained"):
        module = _module_of_engine(site.node.func.value if isinstance(site.node.func, ast.Attribute) else None, engines)
        if module and site.keyword("state_dict") is None and not site.has_star_kwargs and not _gathered(facts, site.node):
            found.append((facts.lines.span_of_node(site.node), f"{module}.save_pretrained(...)"))
    return found


def _zero_stage(setup) -> Optional[int]:
    value = setup.config_value or {}
    zero = value.get("zero_optimization")
    stage = zero.get("stage") if isinstance(zero, dict) else None
    return stage if isinstance(stage, int) else None


@setup_rule("DSL503", "zero3-state-dict-without-gather", severity=Severity.ERROR)
def zero3_state_dict_without_gather(ctx: SetupContext) -> Iterator[Report]:
    """With ZeRO-3 each rank holds a shard: the module's own state_dict() has empty tensors."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        if _zero_stage(setup) != 3 or setup.config.consumer != "deepspeed":
            continue
        for span, what in setup.summary.extra.get("zero3_unsharded_saves", []):
            key = (setup.script_path, span.start_offset)
            if key in seen:
                continue
            seen.add(key)
            yield Report(span, f"{what} under ZeRO-3 ({setup.config.how or setup.config.path}): every parameter is "
                         "partitioned across the ranks and the module holds empty placeholders, so this saves a "
                         "checkpoint without weights (or, gathered on one rank only, hangs). Use "
                         "engine.save_16bit_model(dir) on every rank (with "
                         "stage3_gather_16bit_weights_on_model_save) or gather inside "
                         "deepspeed.zero.GatheredParameters",
                         path=setup.script_path)
