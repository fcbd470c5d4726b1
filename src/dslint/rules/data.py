"""DSL3xx (data): every rank must read its own share of the data, reshuffled each epoch."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Optional

from ..facts.bindings import semantic_model
from ..facts.link import single_process_launches
from ..facts.program import epoch_iterated_params, function_epoch_iterated
from ..facts.script import assigned_name, iterated_expression, literal
from ..fixes import append_keyword, codemod_fixer, keyword_arg, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from .context import PythonContext, SetupContext
from .registry import Report, decider, program_check, python_rule

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
    expr = semantic_model(facts).value_of(dataset)
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
    model = semantic_model(ctx.facts)
    expr = dataset
    for _ in range(4):  # each name on the way may say what it is (`dummy = make(...)`)
        if isinstance(expr, ast.Name):
            if _SYNTHETIC_WORDS.search(expr.id):
                return True
            value = model.assigned_value(expr)
            if value is None:
                return False
            expr = value
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
    return bool(_EVAL_WORDS.search(name) or _EVAL_WORDS.search(getattr(site.ctx.function, "name", "")))


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
        params = dict(row=span.start.row, column=span.start.column, add_import=_sampler_name_unbound(ctx))
        loader, epoch_loop = _loader_and_epoch_loop(ctx, site)
        variable = _loop_variable(epoch_loop)
        if variable:  # the sampler the fix adds must get its set_epoch, or the fix creates DSL302
            head = ctx.facts.lines.span_of_node(epoch_loop)
            params.update(loader=loader, loop_row=head.start.row, loop_column=head.start.column, variable=variable)
        elif epoch_loop is not None:
            params = None  # a fix without set_epoch would trade this bug for DSL302
        yield Report(site.node, f"this DataLoader has no DistributedSampler while the script {why}: every rank "
                     "iterates over the whole dataset (duplicated batches, no speed-up); pass "
                     "sampler=DistributedSampler(dataset)",
                     fix=make_fix("add-distributed-sampler", "Use sampler=DistributedSampler(dataset) (drops shuffle=)",
                                  Applicability.UNSAFE, **params) if params else None,
                     needs=("plain-data-parallel-program", ()))
    yield from _loader_factory_calls(ctx, why)


def _loader_factory_calls(ctx: PythonContext, why: str) -> Iterator[Report]:
    """Loaders built by a project function (`make_loader(ds)`): decided once the program is linked."""
    facts = ctx.facts
    model = semantic_model(facts)
    iterated = {dotted(iterated_expression(node.iter)) for node, _ in facts.of_type(ast.For)}
    for site in facts.calls:
        name = assigned_name(facts, site.node)
        if site.qualname == DATALOADER or name is None or "." in name or _looks_like_eval(ctx, site):
            continue
        if name not in iterated and "loader" not in name.lower():
            continue
        callee = dotted(site.node.func)
        if callee is None or facts.resolve(site.node.func) in (DATALOADER, DISTRIBUTED_SAMPLER):
            continue
        root = site.node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        binding = model.binding_of(root) if isinstance(root, ast.Name) else None
        if binding is None or binding.kind not in ("import", "from-import"):
            continue  # a function of this module: its own DataLoader is checked where it is built
        if _SYNTHETIC_WORDS.search(callee.rsplit(".", 1)[-1]):
            continue
        positional = sum(1 for a in site.node.args if not isinstance(a, ast.Starred))
        star = site.has_star_kwargs or positional < len(site.node.args)
        if star:
            continue
        keywords = tuple(k.arg for k in site.node.keywords)
        yield Report(site.node, f"{callee}() builds this DataLoader without a DistributedSampler while the script {why}: "
                     "every rank iterates over the whole dataset; pass it a DistributedSampler",
                     needs=("loader-factory-without-sampler", (("callee", callee), ("keywords", keywords),
                                                              ("positional", positional))))


@decider("plain-data-parallel-program")
def _decide_plain_data_parallel(finding, project, params):
    """With tensor/pipeline groups the ranks of one model-parallel group must read the same batch:
    a world-sized DistributedSampler would be wrong, so say nothing; nor when every launch starts
    one process."""
    if project.program.model_parallelism(finding.path) or single_process_launches(project, finding.path):
        return None
    return finding


@decider("loader-factory-without-sampler")
def _decide_loader_factory(finding, project, params):
    """Keep the finding when the project function returns a DataLoader with no sampler, or with
    the sampler from a parameter this call leaves at its None default."""
    if project.program.model_parallelism(finding.path) or single_process_launches(project, finding.path):
        return None
    symbol = project.program.symbol(finding.path, params["callee"])
    function = symbol.function if symbol is not None else None
    if function is None or function.loader_sampler is None:
        return None
    where = f" ({symbol.path}:{function.loader_row})"
    if function.loader_sampler == "none":
        return replace(finding, message=finding.message.replace("() builds", f"(){where} builds", 1))
    if not function.loader_sampler.startswith("param:"):
        return None
    param = function.loader_sampler.split(":", 1)[1]
    bound = param in params["keywords"] or (param in function.params and function.params.index(param) < params["positional"])
    if bound or function.defaults.get(param, "required") is not None:
        return None
    return replace(finding, message=f"{params['callee']}(){where} takes its sampler from `{param}=`, which this call "
                   "leaves at None: every rank iterates over the whole dataset; pass "
                   f"{param}=DistributedSampler(dataset)")


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
    loop = None
    if params.get("loader"):
        loop = node_at(positions, (cst.For, cst.While), params["loop_row"], params["loop_column"])
        if loop is None or not isinstance(loop.body, cst.IndentedBlock):
            return None
    new_module = module.visit(_SamplerAndEpoch(call, new_call, loop, params, module.config_for_parsing))
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
        loaders = _loaders_using(ctx, site.node, sampler)
        if sampler is None:
            if len(loaders) != 1:
                continue
            sampler = f"{next(iter(loaders))}.sampler"  # DataLoader(ds, sampler=DistributedSampler(ds))
        epoch_loop = _epoch_loop_over(ctx, loaders)
        if epoch_loop is None:
            continue
        variable = _loop_variable(epoch_loop)
        fix = None
        if variable:
            body_span = facts.lines.span_of_node(epoch_loop)
            fix = make_fix("insert-set-epoch", f"Call {sampler}.set_epoch({variable}) at the start of each epoch",
                           Applicability.SAFE, row=body_span.start.row, column=body_span.start.column,
                           sampler=sampler, variable=variable)
        yield Report(site.node, f"{sampler}.set_epoch(epoch) is never called: DistributedSampler shuffles with the same "
                     f"seed every epoch (line {epoch_loop.lineno} loops over epochs), so every epoch sees the same order",
                     fix=fix)


def _loader_and_epoch_loop(ctx: PythonContext, site) -> tuple[Optional[str], Optional[ast.AST]]:
    """The name the DataLoader is iterated through and the epoch loop around that iteration:
    `loader = DataLoader(...)`, or `loader = make_loader()` for a function of this module that
    returns it."""
    facts = ctx.facts
    name = assigned_name(facts, site.node)
    if name:
        return name, _epoch_loop_over(ctx, {name})
    parent = site.ctx.parent
    function = site.ctx.function
    if not isinstance(parent, ast.Return) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None, None
    for call in facts.method_calls(function.name):
        if call.receiver is None or call.receiver == "self":
            name = assigned_name(facts, call.node)
            loop = _epoch_loop_over(ctx, {name}) if name and "." not in name else None
            if loop is not None:
                return name, loop
    return None, None


def _loaders_using(ctx: PythonContext, sampler_call: ast.AST, sampler: Optional[str]) -> set:
    """Names of the DataLoaders built with this sampler (by its name, or the call given inline)."""
    loaders = set()
    for site in ctx.facts.calls_to(DATALOADER):
        given = site.keyword("sampler")
        if given is not None and (given is sampler_call or (sampler is not None and dotted(given) == sampler)):
            name = assigned_name(ctx.facts, site.node)
            if name:
                loaders.add(name)
    return loaders


def _epoch_loop_over(ctx: PythonContext, loaders: set) -> Optional[ast.AST]:
    """The outer loop (for, or while with an epoch counter) around a `for` over one of `loaders`."""
    for node, where in ctx.facts.of_type(ast.For):
        if dotted(iterated_expression(node.iter)) in loaders and where.loops:
            outer = where.loops[-1]
            if isinstance(outer, ast.For) or _loop_variable(outer):
                return outer
    return None


def _loop_variable(loop: Optional[ast.AST]) -> Optional[str]:
    """The epoch of a loop: a `for` target, or the `epoch += 1` counter of a `while` body."""
    if isinstance(loop, ast.For):
        name = dotted(loop.target)
        return name if name and name != "_" else None
    if isinstance(loop, ast.While):
        for stmt in loop.body:
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and literal(stmt.value) == 1:
                return dotted(stmt.target)
    return None


@program_check("DSL302")
def sampler_epoch_loop_in_another_module(ctx: SetupContext) -> Iterator[Report]:
    """A loader with a shuffling DistributedSampler handed to a project class or function that
    loops over epochs, while neither module calls set_epoch (a trainer class elsewhere)."""
    project = ctx.project
    program = project.program
    for caller, exports in project.modules.items():
        summary = project.scripts.get(caller)
        if exports.calls_set_epoch or summary is None or summary.framework_shards_data:
            continue
        for call in exports.calls:
            shuffled = [a for a in call.arguments if a.loader == "distributed-shuffle"]
            symbol = program.symbol(caller, call.local) if shuffled else None
            if symbol is None or project.modules.get(symbol.path, exports).calls_set_epoch:
                continue
            if symbol.klass is not None:
                loops, init = epoch_iterated_params(symbol.klass), symbol.klass.methods.get("__init__")
            else:
                loops, init = function_epoch_iterated(symbol.function), symbol.function
            if init is None:
                continue
            for argument in shuffled:
                param = init.param_for(argument.position, argument.keyword, method=symbol.klass is not None)
                if param not in loops:
                    continue
                _, span, counter = loops[param]
                stored = symbol.klass.init_stores[param] if symbol.klass is not None else param
                fix = None
                if counter:
                    fix = make_fix("insert-set-epoch", f"Call {stored}.sampler.set_epoch({counter}) at the start of each epoch",
                                   Applicability.SAFE, row=span.start.row, column=span.start.column,
                                   sampler=f"{stored}.sampler", variable=counter)
                yield Report(span, f"the loader from {caller}:{argument.loader_row} has a shuffling DistributedSampler "
                             "and this epoch loop never calls set_epoch: every epoch repeats the same order; call "
                             f"{stored}.sampler.set_epoch(epoch) at the start of each epoch", fix=fix, path=symbol.path)


def _set_epoch_statement(sampler: str, variable: str, config):
    import libcst as cst

    return cst.parse_statement(f"{sampler}.set_epoch({variable})\n", config=config)


def _SamplerAndEpoch(call, new_call, loop, params, config):
    """One pass that swaps in the new DataLoader call and, when `loop` is given, puts
    `loader.sampler.set_epoch(epoch)` first in it (either may contain the other)."""
    import libcst as cst

    class Transformer(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if original is call:
                return new_call
            if loop is not None and original is loop:
                statement = _set_epoch_statement(f"{params['loader']}.sampler", params["variable"], config)
                return updated.with_changes(body=updated.body.with_changes(body=[statement, *updated.body.body]))
            return updated

    return Transformer()


@codemod_fixer("insert-set-epoch")
def _insert_set_epoch(module, positions, params):
    import libcst as cst

    loop = node_at(positions, (cst.For, cst.While), params["row"], params["column"])
    if loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    statement = _set_epoch_statement(params["sampler"], params["variable"], module.config_for_parsing)
    body = loop.body.with_changes(body=[statement, *loop.body.body])
    return module.deep_replace(loop, loop.with_changes(body=body))
