"""DSL3xx (data): every rank must read its own share of the data, reshuffled each epoch."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..fixes import append_keyword, codemod_fixer, keyword_arg, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from ._helpers import assigned_name, enclosing_function_name, iter_target, literal
from .context import PythonContext
from .registry import Report, python_rule

DATALOADER = "torch.utils.data.DataLoader"
DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"
_EVAL_WORDS = re.compile(r"val|eval|test|infer|predict|generat|score|bench", re.IGNORECASE)


def _plain_ddp(ctx: PythonContext) -> Optional[str]:
    """Why the script shards data itself (plain torch.distributed or DeepSpeed), or None."""
    dist = ctx.dist
    if dist.framework_shards_data or not dist.is_multiprocess:
        return None
    facts = ctx.facts
    if facts.calls_to("torch.nn.parallel.DistributedDataParallel"):
        return "wraps the model in DistributedDataParallel"
    if facts.calls_to("torch.distributed.init_process_group"):
        return "starts a torch.distributed process group"
    if facts.calls_to("deepspeed.initialize"):
        return "trains with deepspeed.initialize"
    return None


def _is_iterable_dataset(ctx: PythonContext, dataset: Optional[ast.AST]) -> bool:
    """Iterable datasets shard themselves (or cannot take a sampler): never flag them."""
    facts = ctx.facts
    iterable_classes = {
        name for name, cls in facts.classes.items()
        if any((facts.resolve(b) or "").endswith("IterableDataset") or getattr(b, "id", "").endswith("IterableDataset")
               for b in cls.bases)
    }
    if dataset is None:
        return True  # unknown dataset: say nothing
    expr = dataset
    if isinstance(expr, ast.Name):
        assigned = facts.assignments_to(expr.id)
        if len(assigned) == 1:
            expr = assigned[0].value
    if isinstance(expr, ast.Call):
        name = facts.resolve(expr.func) or dotted(expr.func) or ""
        last = name.rsplit(".", 1)[-1]
        if last in iterable_classes or "Iterable" in last or last in ("load_dataset",) and literal(_kw(expr, "streaming")):
            return True
        if name.startswith(("datasets.", "webdataset.", "torchdata.")) or "wds" in name:
            return "streaming" in ast.unparse(expr) or name.startswith(("webdataset.", "torchdata."))
    return False


_SYNTHETIC_WORDS = re.compile(r"random|synthetic|dummy|fake", re.IGNORECASE)


def _is_synthetic(ctx: PythonContext, dataset: Optional[ast.AST], site) -> bool:
    """Data a benchmark makes up (`random_dataset(...)`, `dummy_data`): the author named it so.

    Only names count: a script that builds `TensorDataset(torch.randn(...))` inline may stand in
    for real data, and is still reported.
    """
    facts = ctx.facts
    expr, function = dataset, site.ctx.function
    for _ in range(3):
        if isinstance(expr, ast.Name):
            if _SYNTHETIC_WORDS.search(expr.id):
                return True
            found = facts.assignments_to(expr.id, function)
            if len(found) != 1:
                return False
            expr = found[0].value
        elif isinstance(expr, ast.Call):
            name = dotted(expr.func) or ""
            return bool(_SYNTHETIC_WORDS.search(name.rsplit(".", 1)[-1]))
        else:
            return False
    return False


def _kw(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _looks_like_eval(ctx: PythonContext, site) -> bool:
    name = assigned_name(ctx.facts, site.node) or ""
    return bool(_EVAL_WORDS.search(name) or _EVAL_WORDS.search(enclosing_function_name(site.ctx)))


@python_rule("DSL301", "loader-without-distributed-sampler", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def loader_without_distributed_sampler(ctx: PythonContext) -> Iterator[Report]:
    """A plain DataLoader in a hand-written DDP/DeepSpeed script: every rank trains on all the data."""
    why = _plain_ddp(ctx)
    if why is None:
        return
    for site in ctx.facts.calls_to(DATALOADER):
        if site.keyword("sampler") is not None or site.keyword("batch_sampler") is not None or site.has_star_kwargs:
            continue
        if len(site.node.args) > 2:  # DataLoader(ds, bs, shuffle, sampler, ...) positionally: rare, be quiet
            continue
        dataset = site.argument(0, "dataset")
        if _is_iterable_dataset(ctx, dataset) or _looks_like_eval(ctx, site) or _is_synthetic(ctx, dataset, site):
            continue
        span = ctx.facts.lines.span_of_node(site.node)
        yield Report(site.node, f"this DataLoader has no DistributedSampler while the script {why}: every rank "
                     "iterates over the whole dataset (duplicated batches, no speed-up); pass "
                     "sampler=DistributedSampler(dataset)",
                     fix=make_fix("add-distributed-sampler", "Use sampler=DistributedSampler(dataset) (drops shuffle=)",
                                  Applicability.UNSAFE, row=span.start.row, column=span.start.column,
                                  add_import=_sampler_name_unbound(ctx)))


@codemod_fixer("add-distributed-sampler")
def _add_distributed_sampler(module, positions, params):
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or any(a.keyword is not None and a.keyword.value in ("sampler", "batch_sampler") for a in call.args):
        return None
    dataset = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dataset"), None)
    if dataset is None and call.args and call.args[0].keyword is None and not call.args[0].star:
        dataset = call.args[0].value
    if dataset is None:
        return None
    shuffle = next((a for a in call.args if a.keyword is not None and a.keyword.value == "shuffle"), None)
    sampler_args = [cst.Arg(dataset)]
    if shuffle is not None and not (isinstance(shuffle.value, cst.Name) and shuffle.value.value == "True"):
        sampler_args.append(keyword_arg("shuffle", shuffle.value))
    sampler = keyword_arg("sampler", cst.Call(func=cst.Name("DistributedSampler"), args=sampler_args))
    if shuffle is not None:
        args = list(call.args)
        args[args.index(shuffle)] = sampler.with_changes(comma=shuffle.comma)
        new_call = call.with_changes(args=args)
    else:
        new_call = append_keyword(call, "sampler", sampler.value)
    new_module = module.deep_replace(call, new_call)
    context = CodemodContext()
    if params.get("add_import", True):
        AddImportsVisitor.add_needed_import(context, "torch.utils.data.distributed", "DistributedSampler")
        new_module = AddImportsVisitor(context).transform_module(new_module)
    return new_module


def _sampler_name_unbound(ctx: PythonContext) -> bool:
    """Does the fix need to import DistributedSampler (the script's import table says)?"""
    return ctx.facts.imports.resolve(ast.Name("DistributedSampler")) != DISTRIBUTED_SAMPLER


@python_rule("DSL302", "distributed-sampler-without-set-epoch", severity=Severity.WARNING, fix=Applicability.SAFE)
def sampler_without_set_epoch(ctx: PythonContext) -> Iterator[Report]:
    """DistributedSampler shuffles with seed + epoch: without set_epoch every epoch sees the same order."""
    facts = ctx.facts
    if facts.method_calls("set_epoch") or ctx.dist.framework_shards_data:
        return
    for site in facts.calls_to(DISTRIBUTED_SAMPLER):
        if literal(site.keyword("shuffle")) is False:
            continue
        sampler = assigned_name(facts, site.node)
        if sampler is None:
            continue
        epoch_loop = _epoch_loop_for(ctx, sampler, site.ctx.function)
        if epoch_loop is None:
            continue
        variable = epoch_loop.target.id if isinstance(epoch_loop.target, ast.Name) else None
        fix = None
        if variable and variable != "_":
            body_span = facts.lines.span_of_node(epoch_loop)
            fix = make_fix("insert-set-epoch", f"Call {sampler}.set_epoch({variable}) at the start of each epoch",
                           Applicability.SAFE, row=body_span.start.row, column=body_span.start.column,
                           sampler=sampler, variable=variable)
        yield Report(site.node, f"{sampler}.set_epoch(epoch) is never called: DistributedSampler shuffles with the same "
                     f"seed every epoch (line {epoch_loop.lineno} loops over epochs), so every epoch sees the same order",
                     fix=fix)


def _epoch_loop_for(ctx: PythonContext, sampler: str, function) -> Optional[ast.For]:
    """The outer `for` loop around a loop over a DataLoader that uses `sampler`."""
    facts = ctx.facts
    loaders = set()
    for site in facts.calls_to(DATALOADER):
        given = site.keyword("sampler")
        if given is not None and dotted(given) == sampler:
            name = assigned_name(facts, site.node)
            if name:
                loaders.add(name)
    for node, where in facts.of_type(ast.For):
        if dotted(iter_target(node.iter)) in loaders and where.loops:
            outer = where.loops[-1]
            if isinstance(outer, ast.For):
                return outer
    return None


@codemod_fixer("insert-set-epoch")
def _insert_set_epoch(module, positions, params):
    import libcst as cst

    loop = node_at(positions, cst.For, params["row"], params["column"])
    if loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    statement = cst.parse_statement(f"{params['sampler']}.set_epoch({params['variable']})\n",
                                    config=module.config_for_parsing)
    body = loop.body.with_changes(body=[statement, *loop.body.body])
    return module.deep_replace(loop, loop.with_changes(body=body))
