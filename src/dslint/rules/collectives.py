"""DSL5xx: collectives and hangs — calls every rank must make (reached by only some ranks), and
ZeRO-3 weights saved without gathering them (DSL503: a setup rule, as it needs the linked config)."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Optional

from ..facts.bindings import semantic_model
from ..facts.collectives import (BARRIERS, CHECKPOINT, COLLECTIVE, ONCE_FLAG, GatedCall, argument_constants,
                                 call_arguments, callers_pass_constants, find_gated_collectives, gate_opener,
                                 made_before, paired_under_complement, passes_flag)
from ..facts.conditions import parameter_gate, rank_gate, rank_tests, under_zero3
from ..facts.lightning_hooks import hook_needs
from ..facts.link import link_setups
from ..facts.script import ScriptFacts
from ..facts.summary import summary_extractor
from ..facts.zero3_reads import module_reads
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted, root_name
from .context import PythonContext, SetupContext
from .config_schema import effective
from .registry import RULES, Report, decider, python_rule, setup_rule, file_label, short


def _gate(description: str) -> str:
    """The rank condition of a gate description, cut short: "`if step % 100 == 0 and rank == 0`"."""
    quoted = re.search(r"`([^`]*)`", description)
    return f"`{short(quoted[1], 30)}`" if quoted else short(description, 32)


def _ranks_past(description: str, in_body: bool = True) -> str:
    """"ranks that pass `if rank == 0`" ("fail" for a call in its `else`), or for an early return (or
    raise) "ranks that get past `if rank == 0: return`" (there the ranks that pass the test are the
    ones that leave)."""
    quoted = re.search(r"`([^`]*)`", description)
    for leave in (": return", ": raise"):
        if quoted and quoted[1].endswith(leave):
            return f"ranks that get past `{short(quoted[1][:-len(leave)], 24)}{leave}`"
    return f"ranks that {'pass' if in_body else 'fail'} {_gate(description)}"


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
        ranks = _ranks_past(call.gate.description, call.gate.in_body)
        # (a gate only through a `rank0_only` parameter of a function that other modules call: decided once linked)
        through = parameter_gate(facts, call.node, None, call.gate)
        needs = ("callers-pass-constant", (("function", through[0]), ("params", through[1]))) if through else None
        yield Report(call.node, f"{short(what, 52)} runs only on {ranks}, so it hangs; call it on every rank", fix=fix,
                     needs=needs)
    yield from _gated_project_calls(facts)


summary_extractor("argument_constants")(argument_constants)


@decider("callers-pass-constant")
def _decide_callers_pass_constant(finding, project, params):
    """Drop the collective when its gate is a parameter (`rank0_only`) that every caller in the
    other modules passes as a constant (or leaves at a constant default): every rank of a call
    takes the same branch."""
    return None if callers_pass_constants(project, finding.path, params["function"], params["params"]) else finding


def _gated_project_calls(facts: ScriptFacts) -> Iterator[Report]:
    """Calls of imported project functions under a rank gate: a hang if the callee, in its own
    module, reaches a collective on every rank that calls it (decided once modules are linked)."""
    for site in facts.calls:
        if not site.calls_project_name(facts.imports):
            continue
        gate = rank_gate(facts, site.node, site.ctx)
        if gate is None:
            continue
        binding = semantic_model(facts).binding_of(root_name(site.node.func))
        if binding is None or binding.kind not in ("import", "from-import"):
            continue  # a local name shadows the import here
        callee = dotted(site.node.func)
        if paired_under_complement(facts, site.node, gate, _same_project_call(site.node, callee)):
            continue  # the other ranks make the same call once, under the negated test
        arguments = call_arguments(site.node, gate_opener(facts, site, gate), under_zero3(site.ctx) is False)
        if made_before(facts, site, lambda call: dotted(call.func) == callee and semantic_model(facts).binding_of(
                root_name(call.func)) is binding):
            # (a callee that makes its collective on its first call only has made it there already)
            arguments = (arguments[0], arguments[1] + ((ONCE_FLAG, "0"),))
        passes = "pass" if gate.in_body else "fail"
        entered = isinstance(semantic_model(facts).parent_of(site.node), ast.withitem)
        yield Report(site.node, f"{callee}() is called only by the ranks that {passes} {gate.description}",
                     needs=("callee-reaches-collective", (("callee", callee), ("gate", gate.description),
                                                          ("arguments", arguments), ("in_body", gate.in_body),
                                                          ("entered", entered))))


def _collective_of_callees(program, symbol, function, depth: int = 2) -> tuple:
    """(collective, Symbol of the function that makes it) of the first imported project function that
    `function` calls outside any `if` and that reaches a collective on every rank without flags (one
    more hop at most); (None, symbol) when none does."""
    for local in function.calls_unguarded if depth else ():
        callee = program.symbol(symbol.path, local)
        inner = callee.function if callee is not None else None
        if inner is None:
            continue
        if inner.collective is not None and not inner.collective[4]:
            return inner.collective, callee
        found, where = _collective_of_callees(program, callee, inner, depth - 1)
        if found is not None:
            return found, where
    return None, symbol


def _same_project_call(node: ast.Call, callee: Optional[str]):
    """For `paired_under_complement`: a call of the same imported function with the same arguments."""
    shape = (ast.dump(ast.Tuple(node.args)), ast.dump(ast.Tuple([k.value for k in node.keywords])),
             tuple(k.arg for k in node.keywords))
    return lambda call: callee is not None and dotted(call.func) == callee and (
        ast.dump(ast.Tuple(call.args)), ast.dump(ast.Tuple([k.value for k in call.keywords])),
        tuple(k.arg for k in call.keywords)) == shape


@decider("callee-reaches-collective")
def _decide_gated_project_call(finding, project, params):
    """Keep the call when the project function reaches a collective (DSL501) or a collective
    checkpoint API (DSL502) on every rank that calls it."""
    symbol = project.program.symbol(finding.path, params["callee"])
    function, method = (symbol.function, "") if symbol is not None else (None, "")
    if symbol is not None and symbol.klass is not None:
        # a project class: its constructor runs, and `with Timer(...):` runs its __enter__ and __exit__ too
        names = ("__init__", "__enter__", "__exit__") if params.get("entered") else ("__init__",)
        function, method = next(((symbol.klass.methods[n], n) for n in names
                                 if n in symbol.klass.methods and symbol.klass.methods[n].collective), (None, ""))
    found = function.collective if function is not None else None
    if found is None and function is not None and not method:
        # (`evaluate()` calls `misc.all_reduce_mean(...)` outside any `if`, and that reaches dist.all_reduce)
        found, symbol = _collective_of_callees(project.program, symbol, function)
    if found is None:
        return None
    label, _, kind, row, flags = found
    if flags and method in ("__enter__", "__exit__"):
        return None  # (their flags are the instance's, which the call's arguments do not show)
    if flags and not passes_flag(params["arguments"], list(function.params)[1 if method else 0:], flags):
        return None  # every collective of the callee sits under `if <flag>:` and this call leaves it False
        # (or passes a value whose truth lets every rank past the gate)
    code = "DSL502" if kind == CHECKPOINT else "DSL501"
    return replace(finding, code=code, name=RULES[code].name, severity=RULES[code].severity,
                   message=f"{short(params['callee'] + ('.' + method if method != '__init__' and method else ''), 28)}() "
                   f"reaches {short(label, 24)} ({file_label(symbol.path, 22)}:"
                   f"{row}) but runs only on {_ranks_past(params['gate'], params.get('in_body', True))}; "
                   "call it on every rank")


@python_rule("DSL502", "rank-gated-checkpoint", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def rank_gated_checkpoint(ctx: PythonContext) -> Iterator[Report]:
    """A save/gather API that every rank must call (ZeRO, FSDP, Lightning, Fabric, Accelerate) under a rank condition."""
    facts = ctx.facts
    for call in find_gated_collectives(facts):
        if call.collective.kind != CHECKPOINT:
            continue
        what = call.via or call.collective.label
        # (a module's state_dict()/load_state_dict() reads or writes what the branch prepared for
        # its ranks: moving it out would hand the other ranks a name they never bound)
        movable = call.collective.label.rsplit(".", 1)[-1] not in ("state_dict", "load_state_dict")
        ranks = _ranks_past(call.gate.description, call.gate.in_body)
        yield Report(call.node, f"{short(what, 44)} runs only on {ranks}, but every rank must call it or the job hangs",
                     fix=_hoist_fix(facts, call, call.collective.label) if movable else None,
                     needs=hook_needs(facts, call.node, _checkpoint_needs(call.collective)))


def _checkpoint_needs(collective) -> Optional[tuple]:
    """What the project phase must decide about a rank-gated checkpoint call, if anything."""
    if collective.since:
        return ("collective-since", (("framework", collective.since[0]), ("version", collective.since[1])))
    if collective.launch_shards:
        return ("accelerate-launch-shards", ())
    if collective.engine_param:
        return ("engine-passed", (("function", collective.engine_param[0]), ("param", collective.engine_param[1])))
    if collective.program_engine:
        return ("program-builds-engine", ())
    return None


@decider("program-builds-engine")
def _decide_program_builds_engine(finding, project, params):
    """Keep a rank-gated `loop.engine.save_checkpoint(...)` of a module that does not import DeepSpeed when a
    program that runs the module calls deepspeed.initialize in one of its modules; a note names the call."""
    from ..facts.script_setup import ScriptSetupFacts

    program = project.program
    for entry in sorted(program.programs_of(finding.path)):
        for module in sorted(program.closure(entry)):
            display = program.display.get(module, module)
            summary = project.scripts.get(display)
            facts = summary.extra.get("setup") if summary is not None else None
            if isinstance(facts, ScriptSetupFacts) and facts.deepspeed_inits:
                return replace(finding, related=[*finding.related, (display, facts.deepspeed_inits[0].span,
                                                                    "deepspeed.initialize builds the engine here")])
    return None


@decider("engine-passed")
def _decide_engine_passed(finding, project, params):
    """Keep a rank-gated `p.save_checkpoint(...)` in a module function when a module of the project
    calls that function with a `deepspeed.initialize` engine for `p`; the finding names that call."""
    from ..facts.program import norm_path

    program, here = project.program, norm_path(finding.path)
    for caller in sorted(program.modules):
        for call in program.modules[caller].calls:
            engines = [a for a in call.arguments if a.wrapper == "engine" or a.self_attribute]
            symbol = program.symbol(caller, call.local) if engines else None
            function = symbol.function if symbol is not None else None
            if function is None or symbol.name != params["function"] or norm_path(symbol.path) != here:
                continue
            engines = [a for a in engines if a.wrapper == "engine" or _holds_engine(program, caller, *a.self_attribute)]
            if any(function.param_for(a.position, a.keyword, method=False) == params["param"] for a in engines):
                where = file_label(program.display.get(caller, caller), 22)
                return replace(finding, message=f"{finding.message} ({where}:{call.row} passes it the engine of "
                               "deepspeed.initialize)")
    return None


def _holds_engine(program, path: str, klass: str, attribute: str) -> bool:
    """May `self.<attribute>` of the class `klass` of `path` hold a DeepSpeed engine: does a class built on it
    (or it) bind the attribute to deepspeed.initialize's engine in a class of its lineage (a mixin whose
    `checkpoint.save(self.engine)` runs on an `SFTTrainer(CheckpointMixin)` that stores it)?"""
    return any(attribute in symbol.klass.engine_attributes
               for lineage in program.lineages_through(path, klass) for symbol in lineage)


# accelerator.py save_state: DEEPSPEED and MEGATRON_LM call model.save_checkpoint, FSDP save_fsdp_model
# (every rank writes its shard, with barriers inside); the other types only write files.
_SHARDING_LAUNCHES = {"DEEPSPEED": "deepspeed", "FSDP": "multi_gpu", "MEGATRON_LM": "multi_gpu"}


@decider("accelerate-launch-shards")
def _decide_accelerate_launch_shards(finding, project, params):
    """Keep a rank-gated accelerator.save_state() when a launch of its program is `accelerate launch`
    with DeepSpeed, FSDP or Megatron-LM (its config file's distributed_type or --use_deepspeed/
    --use_fsdp/--use_megatron_lm) and more than one process; the script alone does not say."""
    from ..facts.program import norm_path

    entries = {norm_path(p) for p in project.program.programs_of(finding.path)} or {norm_path(finding.path)}
    for setup in link_setups(project):
        launch = setup.accelerate
        if setup.launch_path is None or norm_path(setup.script_path) not in entries or launch is None \
                or launch.unknown or setup.spawner_kind != "accelerate":
            continue
        kind = launch.distributed_type
        if _SHARDING_LAUNCHES.get(kind) != launch.launcher or not (launch.num_processes or 0) > 1:
            continue
        span = launch.span(("distributed_type",))
        where = (launch.config.path, span, f"distributed_type: {kind}") if span is not None and launch.config else \
            (setup.launch_path, setup.command.span, f"accelerate launch ({kind})") if setup.command is not None else None
        return replace(finding, related=[*finding.related, where]) if where else finding
    return None


@decider("collective-since")
def _decide_collective_since(finding, project, params):
    """Keep the finding unless the project pins a release older than the one that made the call
    collective (Lightning's Trainer.save_checkpoint barrier came with 2.1.0)."""
    newest = project.newest_allowed(params["framework"])
    return finding if newest is None or newest >= params["version"] else None


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


@summary_extractor("zero3_unsharded_saves")
def zero3_unsharded_saves(facts: ScriptFacts) -> list:
    """(span, what) for weights read from a DeepSpeed engine's module without a gather around them:
    an engine's own name, or a helper's parameter that a call of this module passes an engine for."""
    if not facts.uses("deepspeed"):
        return []
    engines = _engines(facts)
    if not engines:
        return []
    found, seen = [], set()
    for read in module_reads(facts):
        if read.holder in engines or (read.param is not None and _passed_an_engine(facts, read, engines)):
            span = facts.lines.span_of_node(read.node)
            if span.start_offset not in seen:
                seen.add(span.start_offset)
                found.append((span, read.what))
    return found


def _passed_an_engine(facts: ScriptFacts, read, engines: set[str]) -> bool:
    """A call of the read's function in this module passes an engine for its parameter."""
    for site in facts.method_calls(read.function):
        if isinstance(site.node.func, ast.Name) and site.ctx.function is not facts.functions.get(read.function):
            given = site.argument(read.position, read.param)
            if given is not None and dotted(given) in engines:
                return True
    return False


@setup_rule("DSL503", "zero3-state-dict-without-gather", severity=Severity.ERROR)
def zero3_state_dict_without_gather(ctx: SetupContext) -> Iterator[Report]:
    """With ZeRO-3 each rank holds a shard: the module's own state_dict() has empty tensors."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        read = effective(setup.config_value, ctx.settings)
        if read is None or read.zero_stage != 3 or setup.config.consumer != "deepspeed":
            continue
        for span, what in setup.summary.extra.get("zero3_unsharded_saves", []):
            key = (setup.script_path, span.start_offset)
            if key in seen:
                continue
            seen.add(key)
            yield Report(span, f"{short(what, 40)} under ZeRO-3 saves empty placeholders; call "
                         "engine.save_16bit_model(dir) on every rank instead",
                         path=setup.script_path)
        for path, span, what, call in _engine_passed_to_helpers(ctx.project, setup):
            key = (path, span.start_offset)
            if key in seen:
                continue
            seen.add(key)
            yield Report(span, f"{short(what, 40)} under ZeRO-3 saves empty placeholders (the engine comes from "
                         f"{short(call, 28)}); call engine.save_16bit_model(dir) on every rank instead", path=path)


def _engine_passed_to_helpers(project, setup) -> Iterator[tuple]:
    """(display path, Span, what, call) for each helper of another module that reads
    `p.module.state_dict()` where a module of the setup's program passes a DeepSpeed engine for `p`."""
    program = project.program
    for caller in sorted(program.closure(setup.script_path)):
        exports = project.modules.get(caller)
        for call in exports.calls if exports is not None else ():
            engines = [a for a in call.arguments if a.wrapper == "engine"]
            if not engines:
                continue
            symbol = program.symbol(caller, call.local)
            function = symbol.function if symbol is not None else None
            if function is None or not function.unsharded_reads:
                continue
            for given in engines:
                param = function.param_for(given.position, given.keyword, method=False)
                for read_param, _, what, span in function.unsharded_reads:
                    if read_param == param:
                        yield symbol.path, span, what, f"{file_label(program.display.get(caller, caller), 16)}:{call.row}"
