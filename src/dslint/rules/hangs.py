"""DSL5xx: collectives and hangs — calls every rank must make, reached by only some ranks."""
from __future__ import annotations

import ast
import sys
from dataclasses import replace
from typing import Iterator

from ..facts.collectives import BARRIERS, CHECKPOINT, COLLECTIVE, GatedCall, find_gated_collectives
from ..facts.bindings import semantic_model
from ..facts.conditions import rank_gate, rank_tests
from ..facts.script import ScriptFacts
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from .context import PythonContext
from .registry import RULES, Report, decider, python_rule


def _hoist_fix(facts: ScriptFacts, call: GatedCall, what: str):
    """Move the call out of `if <rank test>:` when it is the body's last statement and the test reads only the rank."""
    gate = call.gate
    if_node = gate.if_node
    if if_node is None or not gate.in_body or if_node.orelse or call.via is not None:
        return None
    where = facts.context_of(call.node)
    statement = where.parent
    if not isinstance(statement, ast.Expr) or statement.value is not call.node or if_node.body[-1] is not statement:
        return None
    if where.guards[-1][0] is not if_node or not rank_tests(facts).is_pure_rank_test(if_node.test):
        return None
    if_span = facts.lines.span_of_node(if_node)
    stmt_span = facts.lines.span_of_node(statement)
    return make_fix("hoist-out-of-rank-guard", f"Move {what} after the `if`, so that every rank calls it",
                    Applicability.UNSAFE, if_row=if_span.start.row, if_column=if_span.start.column,
                    row=stmt_span.start.row, column=stmt_span.start.column)


@python_rule("DSL501", "rank-gated-collective", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def rank_gated_collective(ctx: PythonContext) -> Iterator[Report]:
    """A collective (barrier, all_reduce, synced logging...) that only some ranks reach: the others never join."""
    facts = ctx.facts
    for call in find_gated_collectives(facts):
        if call.collective.kind != COLLECTIVE:
            continue
        what = call.via or call.collective.label
        fix = None
        if call.collective.label.rsplit(".", 1)[-1] in BARRIERS:
            fix = _hoist_fix(facts, call, call.collective.label)
        yield Report(call.node, f"{what} is reached only by the ranks that pass {call.gate.description}: "
                     f"{call.collective.why}, so those ranks wait for the others forever (hang until the NCCL "
                     "timeout); call it on every rank and gate only the work that needs one rank", fix=fix)
    yield from _gated_project_calls(facts)


# Libraries the program layer never resolves (besides the standard library): no candidate for their calls.
_LIBRARIES = frozenset(("torch", "deepspeed", "accelerate", "lightning", "pytorch_lightning", "transformers", "numpy",
                        "wandb", "tqdm", "datasets", "megatron", "apex", "PIL", "cv2", "scipy", "pandas", "mpi4py"))


def _gated_project_calls(facts: ScriptFacts) -> Iterator[Report]:
    """Calls of imported project functions under a rank gate: a hang if the callee, in its own
    module, reaches a collective on every rank that calls it (decided once modules are linked)."""
    imported = {local for local, qualname in facts.imports.names.items()
                if qualname.split(".", 1)[0] not in _LIBRARIES and qualname.split(".", 1)[0] not in sys.stdlib_module_names}
    imported |= facts.imports.relative
    for site in facts.calls:
        root = site.node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in imported:
            continue
        gate = rank_gate(facts, site.node)
        if gate is None:
            continue
        binding = semantic_model(facts).binding_of(root)
        if binding is None or binding.kind not in ("import", "from-import"):
            continue  # a local name shadows the import here
        callee = dotted(site.node.func)
        yield Report(site.node, f"{callee}() is called only by the ranks that pass {gate.description}",
                     needs=("callee-reaches-collective", (("callee", callee), ("gate", gate.description))))


@decider("callee-reaches-collective")
def _decide_gated_project_call(finding, project, params):
    """Keep the call when the project function reaches a collective (DSL501) or a collective
    checkpoint API (DSL502) on every rank that calls it."""
    symbol = project.program.symbol(finding.path, params["callee"])
    found = symbol.function.collective if symbol is not None and symbol.function is not None else None
    if found is None:
        return None
    label, why, kind, row = found
    code = "DSL502" if kind == CHECKPOINT else "DSL501"
    return replace(finding, code=code, name=RULES[code].name, severity=RULES[code].severity,
                   message=f"{params['callee']}() reaches {label} ({symbol.path}:{row}; {why}) but only the ranks "
                   f"that pass {params['gate']} call it: they wait for the others forever; call it on every rank")


@python_rule("DSL502", "rank-gated-checkpoint", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def rank_gated_checkpoint(ctx: PythonContext) -> Iterator[Report]:
    """A save/gather API that every rank must call (ZeRO, FSDP, Lightning, Fabric, Accelerate) under a rank condition."""
    facts = ctx.facts
    for call in find_gated_collectives(facts):
        if call.collective.kind != CHECKPOINT:
            continue
        what = call.via or call.collective.label
        yield Report(call.node, f"{what} is called only by the ranks that pass {call.gate.description}, but "
                     f"{call.collective.why}: the job hangs or writes an incomplete checkpoint; call it on every "
                     "rank (the API decides which rank writes)",
                     fix=_hoist_fix(facts, call, call.collective.label))


@codemod_fixer("hoist-out-of-rank-guard")
def _hoist_out_of_rank_guard(module, positions, params):
    import libcst as cst

    if_node = node_at(positions, cst.If, params["if_row"], params["if_column"])
    if if_node is None or if_node.orelse is not None or not isinstance(if_node.body, cst.IndentedBlock):
        return None
    body = list(if_node.body.body)
    last = body[-1]
    where = positions.get(last)
    if where is None or (where.start.line, where.start.column) != (params["row"], params["column"] - 1):
        return None
    moved = last.with_changes(leading_lines=[])
    if len(body) == 1:
        replacement = moved.with_changes(leading_lines=if_node.leading_lines)
        return module.deep_replace(if_node, replacement)
    new_if = if_node.with_changes(body=if_node.body.with_changes(body=body[:-1]))
    return module.deep_replace(if_node, cst.FlattenSentinel([new_if, moved]))
