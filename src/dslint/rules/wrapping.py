"""DSL303–DSL309: the DDP-equivalent wrapper — missing, bypassed, doubled or useless."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..facts.distributed import ACCELERATOR, FABRIC, LIGHTNING_TRAINERS
from ..facts.script import CallSite, ScriptFacts
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from ..facts.conditions import grad_disabled_at
from ..facts.cuda import DDP, DEEPSPEED_INITIALIZE, FSDP
from ..facts.program import is_test_module
from ._setup_helpers import loads_of, names_bound_to, parent_map, unpacked
from .context import PythonContext
from .registry import Report, python_rule

INIT_PG = "torch.distributed.init_process_group"
_SYNC_WORDS = re.compile(r"DistributedDataParallel|\bDDP\b|FSDP|FullyShard|fully_shard|parallelize|replicate\(|"
                         r"all_reduce|allreduce|broadcast|reduce_scatter|ZeroRedundancy|horovod|hvd\.", re.IGNORECASE)
_BASIC_DIST = {"init_process_group", "get_rank", "get_world_size", "barrier", "destroy_process_group",
               "is_initialized", "is_available", "get_backend", "new_group"}


def _value_before(facts: ScriptFacts, name: str, site: CallSite) -> Optional[ast.expr]:
    """The last value assigned to `name` before `site` in its scope (a short way back)."""
    best = None
    for a in facts.assignments_to(name, site.ctx.function):
        if _ends_before(a.node, site.node):
            if best is None or a.node.lineno > best.node.lineno:
                best = a
    if best is None and site.ctx.function is not None:
        found = facts.assignments_to(name, None)
        best = found[-1] if len(found) == 1 else None
    return best.value if best is not None else None


def _ends_before(statement: ast.AST, node: ast.AST) -> bool:
    return (statement.end_lineno, statement.end_col_offset) <= (node.lineno, node.col_offset)


def _last_assignment(facts: ScriptFacts, name: str, site: CallSite) -> Optional[ast.stmt]:
    """The statement that last assigned `name` before `site`, in its scope."""
    before = [a for a in facts.assignments_to(name, site.ctx.function) if _ends_before(a.node, site.node)]
    return max(before, key=lambda a: a.node.lineno).node if before else None


def _is_wrapper_call(facts: ScriptFacts, expr: Optional[ast.AST]) -> Optional[str]:
    if isinstance(expr, ast.Call):
        q = facts.resolve(expr.func)
        if q == DDP:
            return "DistributedDataParallel"
        if q in FSDP:
            return "FullyShardedDataParallel"
    return None


def _plain_torch_optimizer(facts: ScriptFacts, name: str) -> bool:
    """Every assignment of `name` builds a torch.optim optimizer (not a distributed one)."""
    values = [a.value for a in facts.assignments_to(name)]
    return bool(values) and all(
        isinstance(v, ast.Call) and (facts.resolve(v.func) or "").startswith("torch.optim.")
        and "lr_scheduler" not in (facts.resolve(v.func) or "") for v in values)


# -- DSL303 ----------------------------------------------------------------------------------

@python_rule("DSL303", "unsynchronised-model", severity=Severity.ERROR)
def unsynchronised_model(ctx: PythonContext) -> Iterator[Report]:
    """A process group and a training loop, but nothing averages the gradients across ranks."""
    facts = ctx.facts
    dist = ctx.dist
    pg = facts.calls_to(INIT_PG, "torch.distributed.device_mesh.init_device_mesh")
    if not pg or dist.framework_places_devices:
        return
    if facts.calls_to(DEEPSPEED_INITIALIZE, "deepspeed.init_inference", "torch.nn.parallel.DataParallel"):
        return
    backwards = [s for s in facts.method_calls("backward") if s.qualname is None]
    if not backwards:
        return
    steps = [s for s in facts.method_calls("step") if s.qualname is None and s.receiver
             and _plain_torch_optimizer(facts, s.receiver)]
    if not steps:
        return
    # Checked last: the text search is the costly part (an LSP lint of a 2,000-line script).
    if any(q.startswith("torch.distributed.") and q.rsplit(".", 1)[-1] not in _BASIC_DIST
           for q in facts._by_qualname) or _SYNC_WORDS.search(facts.text):
        return  # a wrapper, a collective or something we do not model: it may synchronise
    yield Report(backwards[0].node, f"the script starts a process group (line {pg[0].node.lineno}) and trains here, but "
                 "the model is never wrapped in DistributedDataParallel/FSDP (nor DeepSpeed, Accelerate, Fabric) and "
                 "no gradient is all-reduced: every rank trains its own copy on its own data; wrap the model "
                 "(DDP(model, device_ids=[local_rank])) before building the optimizer")


# -- DSL304 ----------------------------------------------------------------------------------

def _wrapped_names(facts: ScriptFacts) -> dict[str, list]:
    return names_bound_to(facts, DDP)


def _function_has_backward(facts: ScriptFacts, function) -> bool:
    return any(s.ctx.function is function for s in facts.method_calls("backward") if s.qualname is None)


def _reduces_gradients_by_hand(facts: ScriptFacts) -> bool:
    """`dist.all_reduce(p.grad, ...)`: the module syncs gradients itself, so skipping DDP's forward is deliberate."""
    for site in facts.method_calls("all_reduce"):
        tensor = site.argument(0, "tensor")
        if tensor is not None and any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(tensor)):
            return True
    return False


@python_rule("DSL304", "ddp-module-bypass", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def ddp_module_bypass(ctx: PythonContext) -> Iterator[Report]:
    """Training through `ddp.module(...)`: DDP's forward never runs, so backward may not all-reduce."""
    facts = ctx.facts
    wrapped = _wrapped_names(facts)
    if not wrapped or _reduces_gradients_by_hand(facts) or is_test_module(ctx.path):
        return  # (a test that calls .module checks DDP's internals on purpose)
    for node, where in facts.of_type(ast.Call):
        func = node.func
        target = func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            target = func.value
        if not (isinstance(target, ast.Attribute) and target.attr == "module"):
            continue
        owner = dotted(target.value)
        if owner not in wrapped or grad_disabled_at(facts, where) or not _function_has_backward(facts, where.function):
            continue
        span = facts.lines.span_of_node(node.func)
        yield Report(node.func, f"{ast.unparse(node.func)}(...) calls the model inside the DDP wrapper in a function that "
                     "runs backward: DDP's forward (which prepares the gradient all-reduce and syncs buffers) is "
                     f"skipped, so ranks can drift apart; call {owner}(...) instead",
                     fix=make_fix("call-ddp-wrapper", f"Call {owner}(...) instead", Applicability.UNSAFE,
                                  row=span.start.row, column=span.start.column, end_row=span.end.row,
                                  end_column=span.end.column, owner=owner))


@codemod_fixer("call-ddp-wrapper")
def _call_ddp_wrapper(module, positions, params):
    import libcst as cst

    node = node_at(positions, cst.Attribute, params["row"], params["column"], params["end_row"], params["end_column"])
    if node is None:
        return None
    return module.deep_replace(node, cst.parse_expression(params["owner"]))


# -- DSL305 ----------------------------------------------------------------------------------

def _inference_engine(facts: ScriptFacts, expr: ast.AST) -> bool:
    """`eng.module` or `eng` where eng = deepspeed.init_inference(...)."""
    base = expr.value if isinstance(expr, ast.Attribute) and expr.attr == "module" else expr
    if isinstance(base, ast.Call):
        return facts.resolve(base.func) == "deepspeed.init_inference"
    name = dotted(base)
    if not name:
        return False
    values = [a.value for a in facts.assignments_to(name)]
    return bool(values) and all(isinstance(v, ast.Call) and facts.resolve(v.func) == "deepspeed.init_inference" for v in values)


def _uses_only_for_inference(facts: ScriptFacts, name: str, function) -> Optional[list[ast.AST]]:
    """The `name.module` nodes when every use of `name` is inference; None otherwise."""
    parents = parent_map(function if function is not None else facts.tree)
    module_hops = []
    for node in loads_of(facts, name, function):
        parent = parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.attr == "module":
            grand = parents.get(id(parent))
            if isinstance(grand, ast.Attribute) and grand.attr in ("parameters", "named_parameters", "train"):
                return None
            module_hops.append(parent)
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "eval":
            continue
        if isinstance(parent, ast.Call) and parent.func is node:
            where = facts.context_of(parent)
            if where is not None and grad_disabled_at(facts, where):
                continue
        return None
    return module_hops


@python_rule("DSL305", "ddp-for-inference", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def ddp_for_inference(ctx: PythonContext) -> Iterator[Report]:
    """DDP around a model that is never trained: reducer buckets and a weight broadcast for nothing."""
    facts = ctx.facts
    trains = bool([s for s in facts.method_calls("backward") if s.qualname is None]) or bool(
        facts.calls_to(*LIGHTNING_TRAINERS, *FABRIC, DEEPSPEED_INITIALIZE))
    for name, assigned in _wrapped_names(facts).items():
        if len(assigned) != 1:
            continue
        a = assigned[0]
        call = a.value
        if not call.args:
            continue
        inner = call.args[0]
        from_inference = _inference_engine(facts, inner)
        if trains and not from_inference:
            continue
        hops = _uses_only_for_inference(facts, name, a.ctx.function if "." not in name else None)
        if hops is None:
            continue
        if not hops and not from_inference:
            continue
        why = ("it wraps a deepspeed.init_inference model" if from_inference
               else "the model is only called for inference (no backward anywhere in the script)")
        span = facts.lines.span_of_node(call)
        scope = a.ctx.function
        scope_span = facts.lines.span_of_node(scope) if scope is not None else None
        yield Report(call, f"DistributedDataParallel here does nothing useful: {why}, and "
                     f"{'its uses go through .module, which skips DDP entirely' if hops else 'DDP only syncs gradients'}. "
                     "It still allocates gradient buckets (about 2 bytes x trainable parameters in bf16) and "
                     "broadcasts the weights, and shifts memory measurements; shard the inputs per rank and use the "
                     "model directly",
                     fix=make_fix("remove-inference-ddp", "Remove the DistributedDataParallel wrapper and its .module hops",
                                  Applicability.UNSAFE, row=span.start.row, column=span.start.column, name=name,
                                  first_row=scope_span.start.row if scope_span else 1,
                                  last_row=scope_span.end.row if scope_span else 10**9))


@codemod_fixer("remove-inference-ddp")
def _remove_inference_ddp(module, positions, params):
    import libcst as cst

    name = params["name"]
    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or not call.args or call.args[0].keyword is not None:
        return None
    replacements = {call: call.args[0].value}
    for node, where in positions.items():
        if isinstance(node, cst.Attribute) and node.attr.value == "module" \
                and params["first_row"] <= where.start.line <= params["last_row"]:
            try:
                owner = module.code_for_node(node.value)
            except Exception:
                continue
            if owner == name:
                replacements[node] = node.value

    class Replace(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if original in replacements:
                new = replacements[original]
                return new.with_changes(lpar=updated.lpar, rpar=updated.rpar) if hasattr(new, "lpar") and getattr(updated, "lpar", None) else new
            return updated

    return module.visit(Replace())


# -- DSL306 ----------------------------------------------------------------------------------

@python_rule("DSL306", "ddp-inside-deepspeed", severity=Severity.ERROR)
def ddp_inside_deepspeed(ctx: PythonContext) -> Iterator[Report]:
    """A model wrapped in DDP/FSDP and then handed to DeepSpeed or Accelerate, which wrap it again."""
    facts = ctx.facts
    targets = [(s, s.argument(1, "model"), "deepspeed.initialize") for s in facts.calls_to(DEEPSPEED_INITIALIZE)]
    if facts.calls_to(*ACCELERATOR):
        targets += [(s, arg, "accelerator.prepare") for s in facts.method_calls("prepare") if s.qualname is None
                    for arg in s.node.args]
    for site, arg, what in targets:
        value = arg
        if isinstance(arg, ast.Name):
            value = _value_before(facts, arg.id, site)
        wrapper = _is_wrapper_call(facts, value)
        if wrapper is None:
            continue
        yield Report(arg, f"the model given to {what} is already wrapped in {wrapper} (line {value.lineno}): "
                     f"{what.split('.')[0].replace('accelerator', 'Accelerate').replace('deepspeed', 'DeepSpeed')} "
                     "does its own gradient reduction and weight broadcast, so gradients are reduced twice and DDP's "
                     "buckets sit on top; pass the plain model")


# -- DSL307 ----------------------------------------------------------------------------------

def _lightning_module_classes(facts: ScriptFacts) -> list[ast.ClassDef]:
    out = []
    for cls in facts.classes.values():
        for base in cls.bases:
            if facts.resolve(base) == "lightning.pytorch.LightningModule":
                out.append(cls)
                break
    return out


@python_rule("DSL307", "lightning-module-wraps-ddp", severity=Severity.ERROR)
def lightning_module_wraps_ddp(ctx: PythonContext) -> Iterator[Report]:
    """A LightningModule that starts the process group or wraps DDP itself: the strategy already does."""
    facts = ctx.facts
    classes = _lightning_module_classes(facts)
    if not classes:
        return
    names = {DDP: "DistributedDataParallel(...)", INIT_PG: "init_process_group(...)",
             DEEPSPEED_INITIALIZE: "deepspeed.initialize(...)", **{q: "FullyShardedDataParallel(...)" for q in FSDP}}
    for site in facts.calls_to(*names):
        if site.ctx.class_ in classes and site.ctx.function is not None:
            yield Report(site.node, f"{names[site.qualname]} inside the LightningModule {site.ctx.class_.name}: the "
                         "Trainer's strategy already starts the process group and wraps the whole LightningModule; "
                         "this adds a second wrapper (double gradient reduction, a second process group or an error); "
                         "keep plain submodules and choose the strategy on the Trainer")


# -- DSL308 ----------------------------------------------------------------------------------

@python_rule("DSL308", "deepspeed-engine-bypass", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def deepspeed_engine_bypass(ctx: PythonContext) -> Iterator[Report]:
    """`loss.backward()` and `optimizer.step()` on a DeepSpeed engine's model: no reduction, no ZeRO bookkeeping."""
    facts = ctx.facts
    engines = unpacked(facts, DEEPSPEED_INITIALIZE, 0)
    if not engines:
        return
    optimizers = unpacked(facts, DEEPSPEED_INITIALIZE, 1)
    for engine, (assign, where) in engines.items():
        if any(s.receiver == engine for s in facts.method_calls("step")):
            continue  # engine.step() runs: recent DeepSpeed also hooks a plain loss.backward()
        if any(s.receiver in (engine, *optimizers) for s in facts.method_calls("backward")):
            continue  # engine.backward(), or the optimizer's own (legacy FP16_Optimizer) backward
        called_in = {id(c.ctx.function) for c in facts.calls if dotted(c.node.func) == engine}
        for site in facts.method_calls("backward"):
            if site.qualname is not None or site.receiver is None or site.receiver in engines:
                continue
            if id(site.ctx.function) not in called_in:
                continue
            statement = site.ctx.parent
            fix = None
            if isinstance(statement, ast.Expr) and statement.value is site.node and not site.node.args \
                    and not site.node.keywords:
                span = facts.lines.span_of_node(site.node)
                fix = make_fix("engine-backward", f"Use {engine}.backward({site.receiver})", Applicability.UNSAFE,
                               row=span.start.row, column=span.start.column, engine=engine, loss=site.receiver)
            yield Report(site.node, f"{site.receiver}.backward() on the output of the DeepSpeed engine '{engine}', and "
                         f"{engine}.step() is never called: DeepSpeed neither reduces nor partitions the gradients, "
                         f"nor scales the loss; use {engine}.backward({site.receiver}) and {engine}.step()", fix=fix)
        for site in facts.method_calls("step"):
            if site.receiver in optimizers and not site.node.args and optimizers[site.receiver][0] is \
                    _last_assignment(facts, site.receiver, site):
                span = facts.lines.span_of_node(site.node)
                yield Report(site.node, f"{site.receiver}.step() steps DeepSpeed's optimizer behind the engine's back "
                             f"(no gradient-accumulation boundary, clipping, overflow check or ZeRO bookkeeping); call "
                             f"{engine}.step() instead",
                             fix=make_fix("engine-step", f"Use {engine}.step()", Applicability.UNSAFE,
                                          row=span.start.row, column=span.start.column, engine=engine,
                                          optimizer=site.receiver))


@codemod_fixer("engine-backward")
def _engine_backward(module, positions, params):
    import libcst as cst

    for node, where in positions.items():
        if isinstance(node, cst.Call) and (where.start.line, where.start.column + 1) == (params["row"], params["column"]) \
                and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward" and not node.args:
            new = cst.parse_expression(f"{params['engine']}.backward({params['loss']})")
            return module.deep_replace(node, new)
    return None


@codemod_fixer("engine-step")
def _engine_step(module, positions, params):
    import libcst as cst

    for node, where in positions.items():
        if isinstance(node, cst.Call) and (where.start.line, where.start.column + 1) == (params["row"], params["column"]) \
                and isinstance(node.func, cst.Attribute) and node.func.attr.value == "step" \
                and module.code_for_node(node.func.value) == params["optimizer"]:
            return module.deep_replace(node, cst.parse_expression(f"{params['engine']}.step()"))
    return None


# -- DSL309 ----------------------------------------------------------------------------------

def _sampler_of_loader(facts: ScriptFacts, expr: Optional[ast.AST], site: CallSite) -> Optional[ast.AST]:
    """The DistributedSampler given to the DataLoader that `expr` evaluates to, when we can see it."""
    function = site.ctx.function
    if isinstance(expr, ast.Name):
        expr = _value_before(facts, expr.id, site)
    for _ in range(3):
        if isinstance(expr, ast.Name):
            values = facts.assignments_to(expr.id, function) or facts.assignments_to(expr.id, None)
            if len(values) != 1:
                return None
            expr, function = values[0].value, values[0].ctx.function
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in facts.functions:
            helper = facts.functions[expr.func.id]
            returns = [n.value for n in ast.walk(helper) if isinstance(n, ast.Return) and n.value is not None]
            if len(returns) != 1:
                return None
            expr, function = returns[0], helper
        else:
            break
    if not (isinstance(expr, ast.Call) and facts.resolve(expr.func) == "torch.utils.data.DataLoader"):
        return None
    sampler = next((k.value for k in expr.keywords if k.arg in ("sampler", "batch_sampler")), None)
    value = sampler
    if isinstance(sampler, ast.Name):
        found = facts.assignments_to(sampler.id, function) or facts.assignments_to(sampler.id, None)
        value = found[0].value if len(found) == 1 else None
    if isinstance(value, ast.Call) and facts.resolve(value.func) == "torch.utils.data.DistributedSampler":
        return sampler
    return None


@python_rule("DSL309", "distributed-sampler-with-accelerate", severity=Severity.ERROR)
def distributed_sampler_with_accelerate(ctx: PythonContext) -> Iterator[Report]:
    """A DistributedSampler inside a loader given to accelerator.prepare: sharded twice."""
    facts = ctx.facts
    if not facts.calls_to(*ACCELERATOR):
        return
    for site in facts.method_calls("prepare") + facts.method_calls("prepare_data_loader"):
        if site.qualname is not None and not site.qualname.startswith("accelerate"):
            continue
        for arg in site.node.args:
            sampler = _sampler_of_loader(facts, arg, site)
            if sampler is None:
                continue
            yield Report(sampler, "this DataLoader already has a DistributedSampler and is then passed to "
                         f"{site.attr}() (line {site.node.lineno}), which shards it again: each rank sees 1/N² of "
                         "the data and epochs end N times early; give the DataLoader shuffle=True and let "
                         "Accelerate shard it")
