"""DSL303–DSL309: the DDP-equivalent wrapper — missing, bypassed, doubled or useless.

Every name goes through its binding (facts/bindings.py): `model = DDP(model)` reaches the later
`model.module`, a parameter that shadows a module-level wrapper is not the wrapper, and after
`model = model.module` the name holds the inner model again.
"""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..facts.bindings import Binding, SemanticModel, semantic_model
from ..facts.conditions import grad_disabled_at
from ..facts.cuda import DDP, DEEPSPEED_INITIALIZE, FSDP
from ..facts.distributed import ACCELERATOR, FABRIC, LIGHTNING_TRAINERS
from ..facts.program import is_test_module
from ..facts.script import CallSite, ScriptFacts
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from .context import PythonContext
from .registry import Report, python_rule

INIT_PG = "torch.distributed.init_process_group"
INIT_INFERENCE = "deepspeed.init_inference"
DATALOADER = "torch.utils.data.DataLoader"
DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"
_SYNC_WORDS = re.compile(r"DistributedDataParallel|\bDDP\b|FSDP|FullyShard|fully_shard|parallelize|replicate\(|"
                         r"all_reduce|allreduce|broadcast|reduce_scatter|ZeroRedundancy|horovod|hvd\.", re.IGNORECASE)
_BASIC_DIST = {"init_process_group", "get_rank", "get_world_size", "barrier", "destroy_process_group",
               "is_initialized", "is_available", "get_backend", "new_group"}
_WRAPPERS = {DDP: "DistributedDataParallel", **{q: "FullyShardedDataParallel" for q in FSDP}}


def _call_to(model: SemanticModel, expr: Optional[ast.AST], *qualnames: str) -> bool:
    """`expr` is a call whose callee resolves (scope-aware) to one of these names."""
    return isinstance(expr, ast.Call) and model.resolve(expr.func) in qualnames


def _wrapper_call(model: SemanticModel, expr: Optional[ast.AST]) -> Optional[ast.Call]:
    """The DDP/FSDP call that `expr` evaluates to, through the bindings that reach it."""
    value = model.value_of(expr) if expr is not None else None
    return value if _call_to(model, value, *_WRAPPERS) else None


def _is_ddp(model: SemanticModel, expr: ast.AST) -> bool:
    """`expr` holds a DistributedDataParallel wrapper (`ddp`, `self.model`), not a name that shadows one."""
    call = _wrapper_call(model, expr)
    return call is not None and model.resolve(call.func) == DDP


def _called(model: SemanticModel, node: ast.AST) -> bool:
    """`node(...)`: the node is the callee of a call."""
    holder = model.parent_of(node)
    return isinstance(holder, ast.Call) and holder.func is node


def _receiver(site: CallSite) -> Optional[ast.expr]:
    """`x` of `x.method(...)`."""
    return site.node.func.value if isinstance(site.node.func, ast.Attribute) else None


def _no_grad(facts: ScriptFacts, node: ast.AST) -> bool:
    """`node` runs under `torch.no_grad()`/`inference_mode()`."""
    where = facts.context_of(node)
    return where is not None and grad_disabled_at(facts, where)


def _runs_backward(facts: ScriptFacts, function) -> bool:
    return any(s.ctx.function is function for s in facts.method_calls("backward") if s.qualname is None)


# -- DSL303 ----------------------------------------------------------------------------------

def _steps_plain_optimizer(model: SemanticModel, site: CallSite) -> bool:
    """`opt.step()` where every value `opt` may hold is a torch.optim optimizer (not a distributed one)."""
    values = model.values_of(_receiver(site))
    return bool(values) and all(
        isinstance(v, ast.Call) and (model.resolve(v.func) or "").startswith("torch.optim.")
        and "lr_scheduler" not in model.resolve(v.func) for v in values)


@python_rule("DSL303", "unsynchronised-model", severity=Severity.ERROR)
def unsynchronised_model(ctx: PythonContext) -> Iterator[Report]:
    """A process group and a training loop, but nothing averages the gradients across ranks."""
    facts = ctx.facts
    pg = facts.calls_to(INIT_PG, "torch.distributed.device_mesh.init_device_mesh")
    if not pg or ctx.dist.framework_places_devices:
        return
    if facts.calls_to(DEEPSPEED_INITIALIZE, INIT_INFERENCE, "torch.nn.parallel.DataParallel"):
        return
    backwards = [s for s in facts.method_calls("backward") if s.qualname is None]
    if not backwards:
        return
    model = semantic_model(facts)
    if not any(s.qualname is None and _receiver(s) is not None and _steps_plain_optimizer(model, s)
               for s in facts.method_calls("step")):
        return
    # Checked last: the text search is the costly part (an LSP lint of a 2,000-line script).
    if any(q.startswith("torch.distributed.") and q.rsplit(".", 1)[-1] not in _BASIC_DIST
           for q in facts._by_qualname) or _SYNC_WORDS.search(facts.text):
        return  # a wrapper, a collective or something we do not model: it may synchronise
    yield Report(backwards[0].node, f"a process group (line {pg[0].node.lineno}) but nothing averages the gradients, so "
                 "every rank trains its own copy; wrap the model in DistributedDataParallel before the optimizer")


# -- DSL304 ----------------------------------------------------------------------------------

def _module_hop_owner(func: ast.expr) -> Optional[ast.expr]:
    """`x` of a callee `x.module` or `x.module.forward`."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    return func.value if isinstance(func, ast.Attribute) and func.attr == "module" else None


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
    if not facts.calls_to(DDP) or _reduces_gradients_by_hand(facts) or is_test_module(ctx.path):
        return  # (a test that calls .module checks DDP's internals on purpose)
    model = semantic_model(facts)
    for node, where in facts.of_type(ast.Call):
        owner = _module_hop_owner(node.func)
        if owner is None or grad_disabled_at(facts, where) or not _runs_backward(facts, where.function) \
                or not _is_ddp(model, owner):
            continue
        wrapper = dotted(owner)
        span = facts.lines.span_of_node(node.func)
        yield Report(node.func, f"{ast.unparse(node.func)}(...) in a training step skips DDP's forward, which prepares "
                     f"the gradient all-reduce, so ranks can drift apart; call {wrapper}(...) instead",
                     fix=make_fix("call-ddp-wrapper", f"Call {wrapper}(...) instead", Applicability.UNSAFE,
                                  row=span.start.row, column=span.start.column, end_row=span.end.row,
                                  end_column=span.end.column, owner=wrapper))


@codemod_fixer("call-ddp-wrapper")
def _call_ddp_wrapper(module, positions, params):
    import libcst as cst

    node = node_at(positions, cst.Attribute, params["row"], params["column"], params["end_row"], params["end_column"])
    if node is None:
        return None
    return module.deep_replace(node, cst.parse_expression(params["owner"]))


# -- DSL305 ----------------------------------------------------------------------------------

# What `ddp.module.<attr>` does that only training needs.
_TRAINING_ATTRS = frozenset(("parameters", "named_parameters", "train", "requires_grad_", "zero_grad"))


def _wraps_inference_engine(model: SemanticModel, inner: ast.expr) -> bool:
    """`DDP(eng.module)` or `DDP(eng)` where every value of `eng` is a `deepspeed.init_inference(...)`."""
    base = inner.value if isinstance(inner, ast.Attribute) and inner.attr == "module" else inner
    values = model.values_of(base)
    return bool(values) and all(_call_to(model, v, INIT_INFERENCE) for v in values)


def _inference_hops(facts: ScriptFacts, model: SemanticModel, wrapper: Binding,
                    strict: bool) -> Optional[list[ast.Attribute]]:
    """The `w.module` hops when every use of the wrapper `w` is inference, else None.

    Inference: `w.eval()`, `w(...)` under no-grad, `w.module.<attr>` or `w.module(...)` other than
    its parameters or train() (under no-grad when `strict`: the file trains some model). Any other
    use (an argument, an alias, `w.parameters()`) may train it.
    """
    hops = []
    for use in model.uses_of(wrapper):
        holder = model.parent_of(use)
        if isinstance(holder, ast.Attribute) and holder.attr == "module":
            outer = model.parent_of(holder)
            in_place = (isinstance(outer, ast.Attribute) and outer.attr not in _TRAINING_ATTRS) or _called(model, holder)
            if not in_place or (strict and not _no_grad(facts, holder)):
                return None
            hops.append(holder)
        elif isinstance(holder, ast.Attribute) and holder.attr == "eval":
            continue
        elif not (_called(model, use) and _no_grad(facts, holder)):
            return None
    return hops


def _local(wrapper: Binding) -> bool:
    """Bound to a name of a function: every use of it is in this file, where `uses_of` sees it."""
    return "." not in wrapper.name and wrapper.scope.kind == "function"


@python_rule("DSL305", "ddp-for-inference", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def ddp_for_inference(ctx: PythonContext) -> Iterator[Report]:
    """DDP around a model that is never trained: reducer buckets and a weight broadcast for nothing."""
    facts = ctx.facts
    if not facts.calls_to(DDP):
        return
    model = semantic_model(facts)
    trains = any(s.qualname is None for s in facts.method_calls("backward")) or bool(
        facts.calls_to(*LIGHTNING_TRAINERS, *FABRIC, DEEPSPEED_INITIALIZE))
    for wrapper in model.names_bound_to(DDP):
        call = wrapper.value
        if not call.args or isinstance(call.args[0], ast.Starred):
            continue
        engine = _wraps_inference_engine(model, call.args[0])
        strict = trains and not engine
        if strict and not _local(wrapper):
            continue  # the file trains, and code we cannot see may train this model through it
        hops = _inference_hops(facts, model, wrapper, strict)
        if hops is None or not (hops or engine):
            continue
        why = "a deepspeed.init_inference model" if engine else "a model used only through .module for inference"
        yield Report(call, f"DistributedDataParallel around {why} only costs gradient buckets and a weight "
                     "broadcast; use the model directly and shard the inputs per rank",
                     fix=_remove_wrapper_fix(facts, model, wrapper, hops))


def _remove_wrapper_fix(facts: ScriptFacts, model: SemanticModel, wrapper: Binding, hops: list[ast.Attribute]):
    """Drop the wrapper (the whole `model = DDP(model)`, else the call around its first argument),
    the `.module` hops on it and the DDP import left unused; None when a hop may see another value."""
    if any(model.binding_of(hop.value) is not wrapper for hop in hops):
        return None
    call, statement = wrapper.value, wrapper.node
    drop = isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
        and dotted(statement.targets[0]) is not None and dotted(statement.targets[0]) == dotted(call.args[0])
    if drop and _alone_in_block(model, statement):
        return None  # `if distributed: model = DDP(model)`: removing it leaves an empty block
    spans = [facts.lines.span_of_node(hop) for hop in hops]
    start = facts.lines.span_of_node(call).start
    return make_fix("remove-inference-ddp", "Remove the DistributedDataParallel wrapper and its .module hops",
                    Applicability.UNSAFE, row=start.row, column=start.column, drop_statement=drop,
                    hops=tuple((s.start.row, s.start.column, s.end.row, s.end.column) for s in spans),
                    unused_import=_from_import(model, call.func))


def _alone_in_block(model: SemanticModel, statement: ast.stmt) -> bool:
    holder = model.parent_of(statement) or model.tree
    return any(getattr(holder, name, None) == [statement] for name in ("body", "orelse", "finalbody"))


def _from_import(model: SemanticModel, callee: ast.expr) -> Optional[tuple]:
    """(module, name, asname) of the `from module import name as asname` that binds the callee."""
    binding = model.binding_of(callee) if isinstance(callee, ast.Name) else None
    if binding is None or binding.kind != "from-import" or binding.node.level:
        return None
    return (binding.node.module, binding.target.name, binding.target.asname)


@codemod_fixer("remove-inference-ddp")
def _remove_inference_ddp(module, positions, params):
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    hops = [node_at(positions, cst.Attribute, *span) for span in params["hops"]]
    if None in hops:
        return None
    replacements = {hop: hop.value for hop in hops}
    statement = None
    if params["drop_statement"]:
        statement = next((n for n in positions if isinstance(n, cst.SimpleStatementLine) and len(n.body) == 1
                          and isinstance(n.body[0], cst.Assign) and n.body[0].value is call), None)
        if statement is None:
            return None
    else:
        replacements[call] = call.args[0].value

    class RemoveWrapper(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if original in replacements:
                new = replacements[original]
                if getattr(updated, "lpar", None) and hasattr(new, "lpar"):
                    new = new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
                return new
            if statement is not None and isinstance(updated, (cst.Module, cst.IndentedBlock)) \
                    and statement in original.body:
                return _without(updated, original.body.index(statement))
            return updated

    new = module.visit(RemoveWrapper())
    if params["unused_import"]:
        context = CodemodContext()
        RemoveImportsVisitor.remove_unused_import(context, *params["unused_import"])
        new = RemoveImportsVisitor(context).transform_module(new)
    return new


def _without(block, index: int):
    """`block` (a libcst Module or IndentedBlock) without its statement `index`; the comments and
    blank lines above that statement move to the next one (or to the block's footer)."""
    body = list(block.body)
    removed = body.pop(index)
    if index < len(body):
        body[index] = body[index].with_changes(leading_lines=[*removed.leading_lines, *body[index].leading_lines])
        return block.with_changes(body=body)
    return block.with_changes(body=body, footer=[*removed.leading_lines, *block.footer])


# -- DSL306 ----------------------------------------------------------------------------------

@python_rule("DSL306", "ddp-inside-deepspeed", severity=Severity.ERROR)
def ddp_inside_deepspeed(ctx: PythonContext) -> Iterator[Report]:
    """A model wrapped in DDP/FSDP and then handed to DeepSpeed or Accelerate, which wrap it again."""
    facts = ctx.facts
    targets = [(s.argument(1, "model"), "deepspeed.initialize", "DeepSpeed") for s in facts.calls_to(DEEPSPEED_INITIALIZE)]
    if facts.calls_to(*ACCELERATOR):
        targets += [(arg, "accelerator.prepare", "Accelerate") for s in facts.method_calls("prepare")
                    if s.qualname is None for arg in s.node.args]
    model = semantic_model(facts)
    for arg, what, framework in targets:
        wrapper = _wrapper_call(model, arg)
        if wrapper is None:
            continue
        yield Report(arg, f"the model given to {what} is already wrapped in {_WRAPPERS[model.resolve(wrapper.func)]} "
                     f"(line {wrapper.lineno}), so {framework} reduces the gradients a second time; pass the plain model")


# -- DSL307 ----------------------------------------------------------------------------------

def _lightning_module_classes(model: SemanticModel, facts: ScriptFacts) -> list[ast.ClassDef]:
    return [cls for cls in facts.classes.values()
            if any(model.resolve(base) == "lightning.pytorch.LightningModule" for base in cls.bases)]


@python_rule("DSL307", "lightning-module-wraps-ddp", severity=Severity.ERROR)
def lightning_module_wraps_ddp(ctx: PythonContext) -> Iterator[Report]:
    """A LightningModule that starts the process group or wraps DDP itself: the strategy already does."""
    facts = ctx.facts
    names = {DDP: "DistributedDataParallel(...)", INIT_PG: "init_process_group(...)",
             DEEPSPEED_INITIALIZE: "deepspeed.initialize(...)", **{q: "FullyShardedDataParallel(...)" for q in FSDP}}
    sites = facts.calls_to(*names)
    if not sites:
        return
    model = semantic_model(facts)
    classes = _lightning_module_classes(model, facts)
    for site in sites:
        if site.ctx.class_ in classes and site.ctx.function is not None and model.resolve(site.node.func) == site.qualname:
            yield Report(site.node, f"{names[site.qualname]} inside the LightningModule {site.ctx.class_.name}: the "
                         "Trainer's strategy already starts the process group and wraps the module; choose the "
                         "strategy on the Trainer")


# -- DSL308 ----------------------------------------------------------------------------------

def _uses(model: SemanticModel, bindings) -> set[int]:
    """ids of the loads that one of these bindings may be the value of."""
    return {id(use) for b in bindings for use in model.uses_of(b)}


def _engine_is_driven(facts: ScriptFacts, model: SemanticModel, engine: Binding, optimizer: Optional[Binding]) -> bool:
    """`engine.step()` runs (recent DeepSpeed also hooks a plain `loss.backward()` then), or
    `engine.backward()`, or the optimizer's own (legacy FP16_Optimizer) backward."""
    on_engine = _uses(model, [engine])
    on_either = on_engine | _uses(model, [optimizer] if optimizer else [])
    return any(id(_receiver(s)) in on_engine for s in facts.method_calls("step")) or \
        any(id(_receiver(s)) in on_either for s in facts.method_calls("backward"))


def _plain_backwards(facts: ScriptFacts, model: SemanticModel, engine: Binding, engines: set[int]) -> list[CallSite]:
    """`loss.backward()` in the functions that call the engine's forward (not on an engine itself)."""
    forwards_in = {id(model.function_of(use)) for use in model.uses_of(engine) if _called(model, use)}
    return [s for s in facts.method_calls("backward") if s.qualname is None and dotted(_receiver(s))
            and id(_receiver(s)) not in engines and id(s.ctx.function) in forwards_in]


def _optimizer_steps(facts: ScriptFacts, model: SemanticModel, optimizer: Optional[Binding]) -> list[CallSite]:
    """`optimizer.step()` where the name certainly holds the optimizer DeepSpeed returned."""
    return [s for s in facts.method_calls("step") if optimizer is not None and not s.node.args
            and _receiver(s) is not None and model.binding_of(_receiver(s)) is optimizer]


@python_rule("DSL308", "deepspeed-engine-bypass", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def deepspeed_engine_bypass(ctx: PythonContext) -> Iterator[Report]:
    """`loss.backward()` and `optimizer.step()` on a DeepSpeed engine's model: no reduction, no ZeRO bookkeeping."""
    facts = ctx.facts
    if not facts.calls_to(DEEPSPEED_INITIALIZE):
        return
    model = semantic_model(facts)
    engines = model.names_bound_to(DEEPSPEED_INITIALIZE, 0)
    optimizers = {id(b.node): b for b in model.names_bound_to(DEEPSPEED_INITIALIZE, 1)}
    on_any_engine = _uses(model, engines)
    reported: set[int] = set()
    for engine in engines:
        optimizer = optimizers.get(id(engine.node))
        if _engine_is_driven(facts, model, engine, optimizer):
            continue
        for site in _plain_backwards(facts, model, engine, on_any_engine) + _optimizer_steps(facts, model, optimizer):
            if id(site.node) not in reported:
                reported.add(id(site.node))
                yield (_engine_backward_report(facts, site, engine.name, dotted(_receiver(site)))
                       if site.attr == "backward" else _engine_step_report(facts, site, engine.name, optimizer.name))


def _engine_step_report(facts: ScriptFacts, site: CallSite, engine: str, optimizer: str) -> Report:
    span = facts.lines.span_of_node(site.node)
    return Report(site.node, f"{optimizer}.step() steps DeepSpeed's optimizer behind the engine's back (no accumulation "
                  f"boundary, clipping or ZeRO bookkeeping); call {engine}.step() instead",
                  fix=make_fix("engine-step", f"Use {engine}.step()", Applicability.UNSAFE, row=span.start.row,
                               column=span.start.column, engine=engine, optimizer=optimizer))


def _engine_backward_report(facts: ScriptFacts, site: CallSite, engine: str, loss: str) -> Report:
    fix = None
    if isinstance(site.ctx.parent, ast.Expr) and site.ctx.parent.value is site.node and not site.node.args \
            and not site.node.keywords:
        span = facts.lines.span_of_node(site.node)
        fix = make_fix("engine-backward", f"Use {engine}.backward({loss})", Applicability.UNSAFE,
                       row=span.start.row, column=span.start.column, engine=engine, loss=loss)
    return Report(site.node, f"{loss}.backward() on the output of the DeepSpeed engine '{engine}', which never steps: "
                  f"nothing reduces or partitions the gradients; use {engine}.backward({loss}) and {engine}.step()",
                  fix=fix)


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

def _loader_call(model: SemanticModel, expr: ast.expr) -> Optional[ast.Call]:
    """The `DataLoader(...)` that `expr` evaluates to: through bindings, and through a helper of
    this module with a single `return` (a few steps)."""
    for _ in range(3):
        value = model.value_of(expr)
        if _call_to(model, value, DATALOADER):
            return value
        helper = model.binding_of(value.func) if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None
        if helper is None or helper.kind != "def":
            return None
        returns = [n.value for n in ast.walk(helper.node) if isinstance(n, ast.Return) and n.value is not None
                   and model.function_of(n) is helper.node]
        if len(returns) != 1:
            return None
        expr = returns[0]
    return None


@python_rule("DSL309", "distributed-sampler-with-accelerate", severity=Severity.ERROR)
def distributed_sampler_with_accelerate(ctx: PythonContext) -> Iterator[Report]:
    """A DistributedSampler inside a loader given to accelerator.prepare: sharded twice."""
    facts = ctx.facts
    if not facts.calls_to(*ACCELERATOR):
        return
    model = semantic_model(facts)
    for site in facts.method_calls("prepare") + facts.method_calls("prepare_data_loader"):
        if site.qualname is not None and not site.qualname.startswith("accelerate"):
            continue
        for arg in site.node.args:
            loader = _loader_call(model, arg)
            sampler = next((k.value for k in loader.keywords if k.arg in ("sampler", "batch_sampler")), None) \
                if loader is not None else None
            if sampler is None or not _call_to(model, model.value_of(sampler), DISTRIBUTED_SAMPLER):
                continue
            yield Report(sampler, f"this DataLoader already has a DistributedSampler and {site.attr}() (line "
                         f"{site.node.lineno}) shards it again, so each rank sees 1/N² of the data; use shuffle=True "
                         "and let Accelerate shard it")
