"""DSL3xx: distributed setup and data — every rank reads its own share of the data, reshuffled each
epoch, and the model is wrapped once, by the right wrapper, and trained through it."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Optional

from ..facts.bindings import Binding, SemanticModel, semantic_model
from ..facts.conditions import grad_disabled_at
from ..facts.cuda import DDP, DEEPSPEED_INITIALIZE, FSDP
from ..facts.dataset_shards import dataset_origins, indexed_by_rank, keeps_rank_share, splits_per_rank
from ..facts.optional_values import bound_name, optional_arm, present_arm
from ..facts.engine_params import engine_bypasses
from ..facts.distributed import ACCELERATOR, FABRIC, LIGHTNING_TRAINERS, prepared_models
from ..facts.link import link_setups, single_process_launches
from ..facts.module_summary import DATALOADER, DISTRIBUTED_SAMPLER, instance_method
from ..facts.program_loads import (ITERABLE_DATASETS, dataset_makers, imported_class_derives_from, local_made_iterable,
                                   made_iterable)
from ..sources.names import is_library
from ..facts.objects import arguments_for
from ..facts.values import UNKNOWN, constructor_fields, imported_constructor_fields, traced_constant
from ..facts.program import (class_epoch_loops, function_epoch_iterated, inherited_epoch_loops, is_test_module,
                             norm_path)
from ..facts.script import (CallSite, Context, ScriptFacts, assigned_name, enclosing_functions, epoch_counter,
                            iterated_expression, literal)
from ..fixes import append_keyword, codemod_fixer, keyword_arg, make_fix, node_at, with_import
from ..model import Applicability, Severity
from ..sources.names import dotted, root_name
from .context import PythonContext, SetupContext
from .registry import Report, decider, program_check, python_rule, file_label, short

# (`cv`: the cross-validation set of Kaldi-style speech recipes, `cv_data_loader`; only as a whole part of the name)
_EVAL_WORDS = re.compile(r"val|eval|test|infer|predict|generat|score|bench|(?<![a-z0-9])cv(?![a-z0-9])", re.IGNORECASE)


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


def _is_iterable_dataset(ctx: PythonContext, dataset: Optional[ast.AST], where: Optional[Context] = None) -> bool:
    """Iterable datasets shard themselves (or cannot take a sampler), and so does a dataset that is already
    the rank's share: never flag them."""
    facts = ctx.facts
    iterable_classes = {
        name for name, cls in facts.classes.items()
        if any((facts.resolve(b) or "").endswith("IterableDataset") or getattr(b, "id", "").endswith("IterableDataset")
               for b in cls.bases)
    }
    if dataset is None:
        return True  # unknown dataset: say nothing
    if where is not None and _under_iterable_check(dataset, where):
        return True
    model = semantic_model(facts)
    if any(isinstance(v, ast.Call) and "Iterable" in (dotted(v.func) or "").rsplit(".", 1)[-1]
           for v in model.values_of(dataset)):
        return True  # one of the values it may hold (`ds = IterableDatasetShard(ds)` in a branch)
    for expr in dataset_origins(model, dataset):
        if indexed_by_rank(facts, expr):
            return True  # `train_idx.split(...)[rank]`: this rank's part
        if not isinstance(expr, ast.Call):
            continue
        if keeps_rank_share(facts, expr):
            return True  # `Shard(items)` of a class that keeps `items[rank::world]`
        name = facts.resolve(expr.func) or dotted(expr.func) or ""
        last = name.rsplit(".", 1)[-1]
        if splits_per_rank(name):
            return True  # already this rank's shard (map-style too): a sampler would split it again
        if last in iterable_classes or "Iterable" in last or last in ("load_dataset",) and literal(_kw(expr, "streaming")):
            return True
        if name.startswith(("datasets.", "webdataset.", "torchdata.")) or "wds" in name:
            return "streaming" in ast.unparse(expr) or name.startswith(("webdataset.", "torchdata."))
    # made by IterableDataset/IterDataPipe classes of this module, through its functions (`def Dataset(x):
    # return DataList(x)`) and functional datapipes (`Source(x).map(f)`)
    makers = dataset_makers(facts, dataset)
    return makers is not None and local_made_iterable(facts, makers) is True


def _imported_dataset_makers(ctx: PythonContext, dataset: Optional[ast.AST]) -> Optional[tuple]:
    """The dataset's makers (program_loads.dataset_makers) when only other modules can tell whether they
    are iterable datasets (`Dataset(...)` imported from a project module), else None."""
    makers = dataset_makers(ctx.facts, dataset) if dataset is not None else None
    return makers if makers is not None and local_made_iterable(ctx.facts, makers) is None else None


# Iterable dataset classes by their last name: torch's (IterableDataset, ChainDataset), webdataset's
# pipelines (DataPipeline, WebDataset: IterableDataset subclasses), torchdata's IterDataPipe.
_ITERABLE_CLASS_NAMES = ("IterableDataset", "ChainDataset", "DataPipeline", "WebDataset", "IterDataPipe")


def _under_iterable_check(dataset: ast.AST, where: Context) -> bool:
    """The loader (at `where`) is built under `if isinstance(<dataset>, ...IterableDataset):`, or
    an `or` of tests one of which is (the dataset may be iterable there: say nothing)."""
    name = dotted(dataset)
    for guard, in_body in (where.guards if name else ()):
        test = guard.test
        alternatives = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        if in_body and any(_iterable_isinstance(t, name) for t in alternatives):
            return True
    return False


def _iterable_isinstance(test: ast.expr, name: str) -> bool:
    """`isinstance(<name>, C)` or `isinstance(<name>, (C, D))` with an iterable class among them."""
    if not (isinstance(test, ast.Call) and dotted(test.func) == "isinstance" and len(test.args) == 2
            and dotted(test.args[0]) == name):
        return False
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return any((dotted(c) or "").rsplit(".", 1)[-1].endswith(_ITERABLE_CLASS_NAMES) for c in classes)


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
    return any(_EVAL_WORDS.search(name) for name in _role_names(ctx, site)) or \
        bool(_EVAL_WORDS.search(getattr(site.ctx.function, "name", "")))


def _role_names(ctx: PythonContext, site) -> list[str]:
    """The names that say what a loader is for: the name it is assigned to, its dataset's name
    (`DataLoader(val_set)`), the function or class it is passed straight into and its parameter (a
    keyword's name, or the positional parameter of a function or class `__init__` of this module;
    one of another module is looked up by the project phase: see _passed_into)."""
    names = [assigned_name(ctx.facts, site.node, site.ctx) or ""]
    dataset = site.argument(0, "dataset")
    if isinstance(dataset, ast.Subscript) and isinstance(dataset.slice, ast.Constant) and \
            isinstance(dataset.slice.value, str):
        names.append(dataset.slice.value)  # datasets["validation"]
        dataset = dataset.value
    names.append(dotted(dataset) or "" if isinstance(dataset, (ast.Name, ast.Attribute)) else "")
    parent = site.ctx.parent
    if isinstance(parent, ast.keyword) and parent.arg:
        names.append(parent.arg)
    elif isinstance(parent, ast.Call) and site.node in parent.args:
        names.append((dotted(parent.func) or "").rsplit(".", 1)[-1])  # `ValidationHook(DataLoader(ds))`
        found = _local_callee_params(ctx, parent.func)
        index = parent.args.index(site.node)
        if found is not None and index < len(found):
            names.append(found[index])
    return names


def _passed_into(site) -> Optional[tuple]:
    """(callee, index) when the loader is the index-th positional argument of a plain or dotted
    call (`EvalCallback(DataLoader(val))`), for the project phase to name the parameter."""
    parent = site.ctx.parent
    if isinstance(parent, ast.Call) and site.node in parent.args and not any(
            isinstance(a, ast.Starred) for a in parent.args[:parent.args.index(site.node)]):
        callee = dotted(parent.func)
        if callee is not None:
            return callee, parent.args.index(site.node)
    return None


def _local_callee_params(ctx: PythonContext, func: ast.expr) -> Optional[list[str]]:
    """The positional parameters (without self) of the function or class of this module that
    `func` names; None when it is not one."""
    if not isinstance(func, ast.Name):
        return None
    binding = semantic_model(ctx.facts).binding_of(func)
    node = binding.node if binding is not None and binding.kind in ("def", "class") else None
    if isinstance(node, ast.ClassDef):
        node = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name == "__init__"), None)
        skip = 1
    else:
        skip = 0
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    return params[skip:]


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
        if _is_iterable_dataset(ctx, dataset, site.ctx) or _looks_like_eval(ctx, site) or _is_synthetic(ctx, dataset, site):
            continue
        span = ctx.facts.lines.span_of_node(site.node)
        params = dict(row=span.start.row, column=span.start.column, add_import=_sampler_name_unbound(ctx))
        loader, epoch_loop = _loader_and_epoch_loop(ctx, site)
        variable = epoch_counter(epoch_loop)
        if variable:  # the sampler the fix adds must get its set_epoch, or the fix creates DSL302
            head = ctx.facts.lines.span_of_node(epoch_loop)
            params.update(loader=loader, loop_row=head.start.row, loop_column=head.start.column, variable=variable)
        elif epoch_loop is not None:
            params = None  # a fix without set_epoch would trade this bug for DSL302
        yield Report(site.node, "this DataLoader has no DistributedSampler in a data-parallel script, so every rank "
                     "reads all the data; pass sampler=DistributedSampler(dataset)",
                     fix=make_fix("add-distributed-sampler", "Use sampler=DistributedSampler(dataset) (drops shuffle=)",
                                  Applicability.UNSAFE, **params) if params else None,
                     needs=("plain-data-parallel-program", (("passed_into", _passed_into(site)),
                                                             ("dataset_class", _imported_dataset_class(ctx, dataset)),
                                                             ("dataset_makers", _imported_dataset_makers(ctx, dataset)))))
    yield from _loader_factory_calls(ctx, why)


def _imported_dataset_class(ctx: PythonContext, dataset: ast.AST) -> Optional[str]:
    """The name (as written) of the project class imported from another module that builds the
    dataset (`ds = PackedDataset(...)` with `from data.packed import PackedDataset`), else None."""
    from ..facts.config_dicts import project_import

    model = semantic_model(ctx.facts)
    for expr in dataset_origins(model, dataset):
        if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)):
            found = project_import(model, expr.func)
            if found is not None:
                return found
    return None


def _loader_factory_calls(ctx: PythonContext, why: str) -> Iterator[Report]:
    """Loaders built by a project function (`make_loader(ds)`, `train, val = get_loaders()`):
    decided once the program is linked."""
    facts = ctx.facts
    iterated = {dotted(iterated_expression(node.iter)) for node, _ in facts.of_type(ast.For)}
    for site, name, index, callee in _factory_results(ctx):
        method = "()." in callee  # (`dm.val_dataloader()`: the method's name says what it is for)
        if _EVAL_WORDS.search(name) or _EVAL_WORDS.search(getattr(site.ctx.function, "name", "")) \
                or method and _EVAL_WORDS.search(site.attr):
            continue
        if name not in iterated and "loader" not in name.lower():
            continue
        positional = len(site.node.args)
        keywords = tuple(k.arg for k in site.node.keywords)
        shown = dotted(site.node.func) or callee if method else callee.replace("[]", "[...]")
        what = f"{short(shown, 24)}() builds" if index is None else f"{short(shown, 20)}() builds `{short(name, 16)}` as"
        yield Report(site.node, f"{what} a DataLoader with no DistributedSampler, so every rank reads all the data; "
                     "pass it a DistributedSampler",
                     needs=("loader-factory-without-sampler", (("callee", callee), ("keywords", keywords),
                                                              ("positional", positional), ("index", index))))


def _factory_results(ctx: PythonContext) -> list[tuple[CallSite, str, Optional[int], str]]:
    """(call, name, unpack index or None, callee) for each plain name bound to what an imported
    project function returns (`loader = make_loader(ds)`; `train, val = get_loaders(cfg)`).
    Built once per file (DSL301 and DSL302 both ask)."""
    return ctx.facts.derived("factory_results", _build_factory_results)


def _build_factory_results(facts: ScriptFacts) -> list[tuple[CallSite, str, Optional[int], str]]:
    imported = facts.imports.names.keys() | facts.imports.relative  # (names imported anywhere in the file)
    out = []
    model = None
    methods, instances = [], set()  # `x.m(...)` calls; names (`dm`, `self.dm`) bound to an imported name's call
    for site in facts.calls:
        parent = site.ctx.parent
        if site.qualname == DATALOADER or not isinstance(parent, (ast.Assign, ast.AnnAssign)) \
                or parent.value is not site.node:
            continue
        # `LOADERS[args.dataset](8)`: a call of one entry of an imported table of functions
        table = isinstance(site.node.func, ast.Subscript)
        func = site.node.func.value if table else site.node.func
        root = root_name(func)
        if root is None or root.id not in imported:  # (cheap: most calls are not of an imported function)
            if site.receiver and not table:
                methods.append(site)  # `loader = dm.train_dataloader()`: maybe a method of an imported class
            continue
        if site.qualname and is_library(site.qualname):
            continue  # torch.zeros(...), os.path.join(...): not a project function
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Attribute):
            instances.add(dotted(targets[0]))
        bound = _bound_names(parent)
        if not bound:
            continue
        instances.update(name for name, index in bound if index is None)
        callee = dotted(func)
        if callee is None or facts.resolve(func) in (DATALOADER, DISTRIBUTED_SAMPLER):
            continue
        callee += "[]" if table else ""
        if _SYNTHETIC_WORDS.search(callee.rsplit(".", 1)[-1]):
            continue
        if site.has_star_kwargs or any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        model = model or semantic_model(facts)
        binding = model.binding_of(root)
        if binding is None or binding.kind not in ("import", "from-import"):
            continue  # a function of this module: its own DataLoader is checked where it is built
        out.extend((site, name, index, callee) for name, index in bound)
    for site in methods:  # a method of an imported project class, called on an instance of it
        if site.receiver not in instances or _SYNTHETIC_WORDS.search(site.attr) or site.has_star_kwargs \
                or any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        bound = _bound_names(site.ctx.parent)
        model = model or semantic_model(facts)
        callee = instance_method(model, site.node.func) if bound else None
        if callee is not None:
            out.extend((site, name, index, callee) for name, index in bound)
    return out


def _bound_names(statement: ast.AST) -> Optional[list]:
    """(name, unpack index or None) for each plain name one assignment target binds."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1:
        return None
    target = targets[0]
    if isinstance(target, ast.Name):
        return [(target.id, None)]
    if isinstance(target, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return [(e.id, i) for i, e in enumerate(target.elts) if isinstance(e, ast.Name)]
    return None


@decider("plain-data-parallel-program")
def _decide_plain_data_parallel(finding, project, params):
    """With tensor/pipeline groups the ranks of one model-parallel group must read the same batch:
    a world-sized DistributedSampler would be wrong, so say nothing; nor when every launch starts
    one process."""
    if project.program.model_parallelism(finding.path) or single_process_launches(project, finding.path):
        return None
    dataset = params.get("dataset_class")
    if dataset and imported_class_derives_from(project, finding.path, dataset, ITERABLE_DATASETS):
        return None  # an IterableDataset of another module: it shards itself, or cannot take a sampler
    symbol = project.program.symbol(finding.path, dataset) if dataset else None
    if symbol is not None and symbol.klass is not None and symbol.klass.keeps_rank_share:
        return None  # a Dataset of another module whose constructor keeps the rank's share only
    makers = params.get("dataset_makers")
    if makers and made_iterable(project, finding.path, makers):
        return None  # made by iterable datasets of other modules (`Dataset(...)` returning an IterDataPipe chain)
    passed = params.get("passed_into")
    found = project.program.function_called(finding.path, passed[0]) if passed else None
    if found is not None:  # `EvalCallback(DataLoader(ds))`, EvalCallback(val_loader) of another module
        symbol, function = found
        positional = list(function.params[1:] if symbol.klass is not None else function.params)
        if passed[1] < len(positional) and _EVAL_WORDS.search(positional[passed[1]]):
            return None
    return finding


@decider("loader-factory-without-sampler")
def _decide_loader_factory(finding, project, params):
    """Keep the finding when the project function returns a DataLoader with no sampler, or with
    the sampler from a parameter this call leaves at its None default."""
    if project.program.model_parallelism(finding.path) or single_process_launches(project, finding.path):
        return None
    returned = _factory_returns(project, finding.path, params["callee"], params.get("index"))
    if returned is None or _EVAL_WORDS.search(returned[0][2]):
        return None
    (sampler, row, _), symbol, several, _ = returned
    function = symbol.function
    if several and sampler != "none":
        return None  # (a sampler from a parameter: each entry's own parameters and defaults decide)
    at = f" ({file_label(symbol.path, 24)}:{row})"
    if sampler == "none":
        return replace(finding, message=finding.message.replace("() builds", f"(){at} builds", 1))
    if not sampler.startswith("param:"):
        return None
    param = sampler.split(":", 1)[1]
    positional = function.params[1:] if symbol.klass is not None else function.params  # (a method's `self`)
    bound = param in params["keywords"] or (param in positional and positional.index(param) < params["positional"])
    if bound or function.defaults.get(param, "required") is not None:
        return None
    return replace(finding, message=f"{short(params['callee'], 24)}(){at} gets no `{short(param, 12)}=` here, so "
                   f"every rank reads all the data; pass {short(param, 12)}=DistributedSampler(dataset)")


@codemod_fixer("add-distributed-sampler")
def _add_distributed_sampler(module, positions, params):
    import libcst as cst

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
    if params.get("add_import", True):
        new_module = with_import(new_module, "torch.utils.data.distributed", "DistributedSampler")
    return new_module


def _sampler_name_unbound(ctx: PythonContext) -> bool:
    """Does the fix need to import DistributedSampler (the script's import table says)?"""
    return ctx.facts.imports.resolve(ast.Name("DistributedSampler")) != DISTRIBUTED_SAMPLER


def _may_shuffle(facts, shuffle: Optional[ast.expr]) -> bool:
    """Does the sampler shuffle, as far as the bindings show? The default (True), or a value traced
    to a true constant; `shuffle=is_train` or a parameter may be False for the loop's loader."""
    if shuffle is None:
        return True
    value = traced_constant(semantic_model(facts), shuffle).value
    return value is not UNKNOWN and bool(value)


@python_rule("DSL302", "distributed-sampler-without-set-epoch", severity=Severity.WARNING, fix=Applicability.SAFE)
def sampler_without_set_epoch(ctx: PythonContext) -> Iterator[Report]:
    """DistributedSampler shuffles with seed + epoch: without set_epoch every epoch sees the same order."""
    facts = ctx.facts
    if facts.method_calls("set_epoch") or ctx.dist.framework_shards_data:
        return
    for site in facts.calls_to(DISTRIBUTED_SAMPLER):
        if not _may_shuffle(facts, site.argument(3, "shuffle")):
            continue
        sampler, optional = bound_name(facts, site.node, site.ctx)  # (`... if distributed else None`)
        factories: list = []
        loaders = _loaders_using(ctx, site.node, sampler, factories)
        if not loaders and factories and (site.keyword("shuffle") is None or literal(site.keyword("shuffle"))):
            # `return DataLoader(ds, sampler=sampler)` in a function of this module (whose callers cannot
            # choose the shuffle: `shuffle=is_train` may be False for the loader the loop reads)
            loaders, sampler = _loaders_from_local_factory(ctx, factories), None
        if sampler is None:
            if len(loaders) != 1:
                continue
            sampler = f"{next(iter(loaders))}.sampler"  # DataLoader(ds, sampler=DistributedSampler(ds))
            optional = optional_arm(facts, site.node, site.ctx) is not None
        epoch_loop, hopped = _epoch_loop_over(ctx, loaders), False
        if epoch_loop is None:
            epoch_loop, hopped = _epoch_loop_calling_method(ctx, loaders), True
        if epoch_loop is None:
            epoch_loop = _endless_generator_over(ctx, loaders)  # `loader = sample_data(loader)`
        iterated_by = None
        if epoch_loop is None:  # `for epoch in ...: train_one_epoch(model, loader)`, a function that iterates it
            epoch_loop, iterated_by = _epoch_loop_handing_over(ctx, loaders)
            hopped = False  # (the epoch loop is here, beside the loader)
        if epoch_loop is None:
            continue
        # (None has no set_epoch; a sampler bound in another method is no name in the epoch loop's)
        target = None if optional or hopped else _set_epoch_target(ctx, site, sampler, loaders, epoch_loop)
        fix = set_epoch_fix(facts, epoch_loop, target) if target else None
        passed = _handed_to_project_functions(facts, epoch_loop, loaders | {sampler} | {f"{n}.sampler" for n in loaders})
        needs = ("set-epoch-in-callee", (("calls", passed),)) if passed else None
        if hopped:  # (the loop hands the trainer itself to hooks: no module of the program may set the epoch)
            needs = ("set-epoch-in-program", (("calls", passed),))
        if iterated_by:  # (an imported function: once linked, it must iterate the loader and not set the epoch)
            needs = ("loader-iterated-by-callee", (("calls", passed), ("iterated_by", iterated_by)))
        # (through a method the epoch loop calls, the loader may not exist yet at the loop's start)
        when = "before each pass over the loader" if hopped else "at the start of each epoch"
        yield Report(site.node, f"{short(sampler, 30)}.set_epoch(epoch) is never called, so every epoch (loop on line "
                     f"{epoch_loop.lineno}) repeats the same shuffle; call it {when}",
                     fix=fix, needs=needs)
    yield from _factory_loaders_in_epoch_loops(ctx)


def _handed_to_project_functions(facts: ScriptFacts, epoch_loop: ast.AST, names: set) -> tuple:
    """(callee, position, keyword) for each call, in the epoch loop, of an imported project function
    that is handed one of `names` (the loader, its sampler): that function may set the epoch."""
    return tuple(found for site in facts.calls if epoch_loop in site.ctx.loops
                 for found in _handed_by(facts, site, names))


def _handed_by(facts: ScriptFacts, site, names: set) -> tuple:
    """(callee, position, keyword) for each of `names` this call of an imported project function is handed."""
    head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
    relative = head in facts.imports.relative  # (relative imports are not in `names`)
    if not relative and (head not in facts.imports.names or is_library(facts.imports.names[head])):
        return ()
    callee = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
    found = [(callee, index, None) for index, arg in enumerate(site.node.args) if dotted(arg) in names]
    found += [(callee, None, k.arg) for k in site.node.keywords if k.arg and dotted(k.value) in names]
    return tuple(found)


def _epoch_loop_handing_over(ctx: PythonContext, loaders: set) -> tuple[Optional[ast.AST], tuple]:
    """The loop (a `for`, or a `while` with an epoch counter) that calls a function with one of `loaders`
    for it to iterate (`for epoch in ...: train_one_epoch(model, loader, ...)`): (the loop, ()) for a
    function of this module whose body loops over that parameter, (the loop, the calls as
    _handed_to_project_functions gives them) for an imported project function (decided once linked);
    (None, ()) when there is no such loop."""
    facts = ctx.facts
    by_name = facts.derived("loop_call_arguments", _loop_call_arguments)
    sites = {id(s.node): s for name in loaders for s in by_name.get(name, ())}
    for site in sorted(sites.values(), key=lambda s: (s.node.lineno, s.node.col_offset)):
        function = facts.functions.get(site.node.func.id) if isinstance(site.node.func, ast.Name) else None
        if function is not None and semantic_model(facts).binding_of(site.node.func) is not None:
            params = [a.arg for a in function.args.args]
            given = {params[i] for i, a in enumerate(site.node.args) if i < len(params) and dotted(a) in loaders}
            given |= {k.arg for k in site.node.keywords if dotted(k.value) in loaders}
            if any(isinstance(n, ast.For) and dotted(iterated_expression(n.iter)) in given for n in ast.walk(function)):
                return site.ctx.loops[-1], ()
            continue
        passed = _handed_by(facts, site, loaders)
        if passed:
            return site.ctx.loops[-1], passed
    return None, ()


def _loop_call_arguments(facts: ScriptFacts) -> dict:
    """Name or dotted name -> the calls inside a `for` (or a `while` with an epoch counter) that are handed it,
    in source order: what _epoch_loop_handing_over looks up (once per module, not once per loader)."""
    found: dict = {}
    for site in facts.calls:
        loop = site.ctx.loops[-1] if site.ctx.loops else None
        if loop is None or not (isinstance(loop, ast.For) or epoch_counter(loop)):
            continue
        for arg in (*site.node.args, *(k.value for k in site.node.keywords)):
            name = dotted(arg) if isinstance(arg, (ast.Name, ast.Attribute)) else None
            if name:
                found.setdefault(name, []).append(site)
    return found


@decider("loader-iterated-by-callee")
def _decide_loader_iterated_by_callee(finding, project, params):
    """Keep the finding when one project function the epoch loop hands the loader to iterates that
    parameter, and no module of the program may set an epoch (the loader may travel further)."""
    return finding if _iterated_without_set_epoch(project, finding.path, params["iterated_by"]) else None


def _iterated_without_set_epoch(project, path: str, calls) -> bool:
    program = project.program
    return _callee_iterates(project, path, calls) and not _may_set_epoch(program, program.program_modules(path))


def _callee_iterates(project, path: str, calls) -> bool:
    """Does one of these project functions ((callee, position, keyword)) loop over the parameter it is given?"""
    for callee, index, keyword in calls or ():
        symbol = project.program.callee(path, callee)
        function = symbol.function if symbol is not None else None
        if function is None:
            continue
        positional = function.params[1:] if symbol.klass is not None else function.params
        param = keyword or (positional[index] if index is not None and index < len(positional) else None)
        if param is not None and param in function.iterated:
            return True
    return False


@decider("set-epoch-in-callee")
def _decide_set_epoch_in_callee(finding, project, params):
    """Drop the finding when a project function the loop hands the loader (or sampler) to may set its epoch."""
    return None if _callee_may_set_epoch(project, finding.path, params["calls"]) else finding


def _may_set_epoch(program, modules) -> bool:
    """Does one of these modules (normalised paths) call set_epoch, or have no summary to say it does not?"""
    return any(getattr(program.modules.get(m), "calls_set_epoch", True) for m in modules)


@decider("set-epoch-in-program")
def _decide_set_epoch_in_program(finding, project, params):
    """Drop the finding when any module of the program calls set_epoch (or has no summary)."""
    if _may_set_epoch(project.program, project.program.program_modules(finding.path)):
        return None
    return _decide_set_epoch_in_callee(finding, project, params)


def _callee_may_set_epoch(project, path: str, calls) -> bool:
    """Does one of the project functions handed the loader or sampler ((callee, position, keyword),
    see _handed_to_project_functions) call .set_epoch on that parameter, or on something dslint
    cannot follow, or is it one dslint cannot read (unknown: say nothing)?"""
    program = project.program
    for callee, index, keyword in calls or ():
        symbol = program.callee(path, callee)
        function = symbol.function if symbol is not None else None
        if function is None:  # (a function that calls set_epoch has a summary: this one may not be found)
            if _may_set_epoch(program, program.program_modules(path)):
                return True
            continue
        if not function.calls_set_epoch:
            continue
        reached = getattr(function, "set_epoch_params", ())
        positional = function.params[1:] if symbol.klass is not None else function.params
        param = keyword or (positional[index] if index < len(positional) else None)
        if not reached or param is None or param in reached:
            return True
    return False


def set_epoch_fix(facts: ScriptFacts, epoch_loop: ast.AST, sampler: str):
    """The safe fix that calls `sampler.set_epoch(<the loop's counter>)` first in the epoch loop (None
    when the loop has no counter to pass)."""
    variable = epoch_counter(epoch_loop)
    if not variable:
        return None
    body_span = facts.lines.span_of_node(epoch_loop)
    return make_fix("insert-set-epoch", f"Call {short(sampler, 32)}.set_epoch({short(variable, 20)}) at the start of "
                    "each epoch", Applicability.SAFE, row=body_span.start.row, column=body_span.start.column,
                    sampler=sampler, variable=variable)


def _factory_loaders_in_epoch_loops(ctx: PythonContext) -> Iterator[Report]:
    """`loader = build_loader(ds)` (an imported project function) iterated inside an epoch loop
    here: DSL302 when, once linked, the function's loader has a shuffling DistributedSampler."""
    facts = ctx.facts
    for site, name, index, callee in _factory_results(ctx):
        epoch_loop, iterated_by = _epoch_loop_over(ctx, {name}), ()
        if epoch_loop is None:  # `for epoch in ...: train_one_epoch(model, train_loader)`
            epoch_loop, iterated_by = _epoch_loop_handing_over(ctx, {name})
        if epoch_loop is None:
            continue
        fix = set_epoch_fix(facts, epoch_loop, f"{name}.sampler")
        passed = _handed_to_project_functions(facts, epoch_loop, {name, f"{name}.sampler"})
        yield Report(site.node, f"{short(name, 20)}.sampler.set_epoch(epoch) is never called, so every epoch (loop on line "
                     f"{epoch_loop.lineno}) repeats the same shuffle; call it at the start of each epoch", fix=fix,
                     needs=("factory-loader-shuffles", (("callee", callee), ("index", index), ("calls", passed),
                                                        ("iterated_by", iterated_by))))
    yield from _factory_calls_iterated_each_epoch(ctx)


def _factory_calls_iterated_each_epoch(ctx: PythonContext) -> Iterator[Report]:
    """`for batch in dm.train_dataloader():` (or `make_loader(ds)`) inside an epoch loop: each epoch
    iterates the loader the project helper returns, and a new DistributedSampler starts at epoch 0
    (a kept one is never told the epoch): DSL302 once linked, as for a bound loader."""
    facts = ctx.facts
    imported = facts.imports.names.keys() | facts.imports.relative
    model = None
    for node, where in facts.of_type(ast.For):
        call = iterated_expression(node.iter)
        root = root_name(call.func) if isinstance(call, ast.Call) and where.loops else None
        if root is None or (root.id not in imported and not isinstance(call.func, ast.Attribute)):
            continue  # (cheap: `range(n)`, a local function)
        outer = where.loops[-1]
        counter = epoch_counter(outer)
        if not (isinstance(outer, ast.For) or counter) or _SYNTHETIC_WORDS.search(dotted(call.func) or ""):
            continue
        if counter and any(isinstance(n, ast.Name) and n.id == counter for a in (*call.args, *call.keywords)
                           for n in ast.walk(a)):
            continue  # `dm.train_dataloader(epoch)`: the helper may seed or set the epoch from it
        model = model or semantic_model(facts)
        returned = _project_call_result(model, call, methods=True)
        if returned is None:
            continue
        yield Report(call, f"{short(dotted(call.func) or returned[0], 24)}()'s sampler.set_epoch(epoch) is never called, so "
                     f"every epoch (loop on line {outer.lineno}) repeats the same shuffle; bind the loader before the "
                     "loop and call loader.sampler.set_epoch(epoch) at the start of each epoch",
                     needs=("factory-loader-shuffles", (("callee", returned[0]), ("index", None))))


@decider("factory-loader-shuffles")
def _decide_factory_loader_shuffles(finding, project, params):
    """Keep the finding when the project function returns (that element as) a DataLoader with a
    shuffling DistributedSampler and its module never calls set_epoch."""
    found = _factory_loader(project, finding.path, params["callee"], params["index"])
    if found is None or found[0] != "distributed-shuffle" or _callee_may_set_epoch(project, finding.path, params.get("calls")):
        return None
    if params.get("iterated_by") and not _iterated_without_set_epoch(project, finding.path, params["iterated_by"]):
        return None  # (handed to a function that does not loop over it: not known to be a pass per epoch)
    symbol, row = found[1], found[2]
    return replace(finding, message=finding.message.replace(
        "is never called,", f"is never called (loader: {file_label(symbol.path, 20)}:{row}),", 1))


def _shuffling_loader(project, caller: str, argument) -> bool:
    """The argument is a DataLoader with a shuffling DistributedSampler: built here, or returned
    by a project function (`loader = build_loader(ds)`)."""
    if argument.loader == "distributed-shuffle":
        return True
    found = _factory_loader(project, caller, *argument.returned_by) if argument.returned_by else None
    return found is not None and found[0] == "distributed-shuffle"


def _factory_loader(project, path: str, callee: str, index: Optional[int]) -> Optional[tuple]:
    """(sampler source, Symbol, row) of the DataLoader that `callee` (a project function imported by
    `path`) returns, or element `index` of the tuple it returns; None when unknown, or when the
    function's module calls set_epoch somewhere (it may keep the sampler's epoch itself); for a
    method, also the module of the instance's class (a subclass of the one that defines it)."""
    returned = _factory_returns(project, path, callee, index)
    if returned is None:
        return None
    klass = project.program.symbol(path, callee.partition("().")[0]) if "()." in callee else None
    for symbol in [*returned[3], *([klass] if klass is not None else [])]:
        exports = project.modules.get(symbol.path)
        if exports is None or exports.calls_set_epoch:
            return None
    return returned[0][0], returned[1], returned[0][1]


def _factory_returns(project, path: str, callee: str, index: Optional[int]) -> Optional[tuple]:
    """((sampler source, row, returned name) of the loader, the first Symbol, several?, the Symbols)
    for `callee`, a project function, or `TABLE[]` (a call of an entry of a table of functions:
    `LOADERS[key](...)`), when every function it may be returns a DataLoader with one sampler source."""
    program = project.program
    if callee.endswith("[]"):
        symbols = program.table_functions(path, callee[:-2]) or []
    else:
        symbol = program.callee(path, callee)
        symbols = [symbol] if symbol is not None else []
    found = [s.function.loader_returned(index) for s in symbols]
    if not found or any(f is None for f in found) or len({(f[0], bool(_EVAL_WORDS.search(f[2]))) for f in found}) != 1:
        return None
    return found[0], symbols[0], len(symbols) > 1, symbols


def _loader_and_epoch_loop(ctx: PythonContext, site) -> tuple[Optional[str], Optional[ast.AST]]:
    """The name the DataLoader is iterated through and the epoch loop around that iteration:
    `loader = DataLoader(...)`, or `loader = make_loader()` for a function of this module that
    returns it."""
    facts = ctx.facts
    name = assigned_name(facts, site.node, site.ctx)
    if name:
        return name, _epoch_loop_over(ctx, {name})
    parent = site.ctx.parent
    function = site.ctx.function
    if not isinstance(parent, ast.Return) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None, None
    for call in facts.method_calls(function.name):
        if call.receiver is None or call.receiver == "self":
            name = assigned_name(facts, call.node, call.ctx)
            loop = _epoch_loop_over(ctx, {name}) if name and "." not in name else None
            if loop is not None:
                return name, loop
    return None, None


def _loaders_using(ctx: PythonContext, sampler_call: ast.AST, sampler: Optional[str],
                   returned: Optional[list] = None) -> set:
    """Names of the DataLoaders built with this sampler (by its name, or the call given inline);
    the loaders a function returns go to `returned`, when given."""
    loaders = set()
    model = semantic_model(ctx.facts)
    for site in ctx.facts.calls_to(DATALOADER):
        given = site.keyword("sampler")
        if isinstance(given, ast.Name) and dotted(given) == sampler:
            bound = model.binding_of(given)  # (another function's `sampler` is another sampler)
            if bound is not None and bound.value is not None and present_arm(bound.value) is not sampler_call:
                continue
        if given is not None and (present_arm(given) is sampler_call or (sampler is not None and dotted(given) == sampler)):
            name = assigned_name(ctx.facts, site.node, site.ctx)
            if name:
                loaders.add(name)
            elif returned is not None and isinstance(site.ctx.parent, ast.Return) \
                    and isinstance(site.ctx.function, ast.FunctionDef):
                returned.append(site.ctx.function)
    return loaders


def _set_epoch_target(ctx: PythonContext, site: CallSite, sampler: str, loaders: set, epoch_loop: ast.AST) -> Optional[str]:
    """What the fix may call set_epoch on at the start of the epoch loop: the sampler's name when the
    loop's function sees it, else the one loader's `self.x.sampler` when `__init__` (or the loop's own
    function) assigns it; None when no name is surely bound there."""
    loop_function = (ctx.facts.context_of(epoch_loop) or site.ctx).function
    # (the loop's function, those it is nested in, and module level: names a closure or a global sees)
    sees = [*enclosing_functions(ctx.facts, loop_function), None]
    if "." not in sampler and any(site.ctx.function is f for f in sees):
        return sampler
    names = {sampler.rsplit(".sampler", 1)[0]} if sampler.endswith(".sampler") else set(loaders)
    if len(names) != 1:
        return None
    loader = next(iter(names))
    if "." not in loader:  # `dl = make_loader(ds)`: `dl.sampler`, where the loop's function sees `dl`
        stores = [where.function for node, where in ctx.facts.of_type(ast.Assign)
                  if any(dotted(t) == loader for t in node.targets)]
        return f"{loader}.sampler" if stores and all(any(f is g for g in sees) for f in stores) else None
    if not loader.startswith("self."):
        return None
    stores = [node for node, where in ctx.facts.of_type(ast.Assign) if any(dotted(t) == loader for t in node.targets)]

    def before(node):
        where = ctx.facts.context_of(node)
        function = where.function if where is not None else None
        return getattr(function, "name", None) == "__init__" or (
            function is loop_function and (node.lineno, node.col_offset) < (epoch_loop.lineno, epoch_loop.col_offset))
    return f"{loader}.sampler" if stores and all(before(n) for n in stores) else None


def _loaders_from_local_factory(ctx: PythonContext, factories: list) -> set:
    """Names bound to a call of one of these functions of the module (`loader = make_loader(ds)`), or of
    one of these methods on `self` in their class (`self.train_loader = self.get_dataloader()`)."""
    model = semantic_model(ctx.facts)
    names = set()
    for factory in factories:
        klass = next((c for c in ctx.facts.classes.values() if factory in c.body), None)
        for site in ctx.facts.method_calls(factory.name):
            if klass is not None:  # `self.train_loader = self.get_dataloader()` in a method of its class
                mine = site.receiver == "self" and site.ctx.class_ is klass
                name = assigned_name(ctx.facts, site.node, site.ctx) if mine else None
            elif isinstance(site.node.func, ast.Name):
                bound = model.binding_of(site.node.func)
                name = assigned_name(ctx.facts, site.node, site.ctx) if bound is not None and bound.node is factory else None
            else:
                name = None
            if name:
                names.add(name)
    return names


def _epoch_loop_over(ctx: PythonContext, loaders: set) -> Optional[ast.AST]:
    """The outer loop (for, or while with an epoch counter) around a `for` over one of `loaders`."""
    for node, where in ctx.facts.of_type(ast.For):
        if dotted(iterated_expression(node.iter)) in loaders and where.loops:
            outer = where.loops[-1]
            if isinstance(outer, ast.For) or epoch_counter(outer):
                return outer
    return None


def _endless_generator_over(ctx: PythonContext, loaders: set) -> Optional[ast.AST]:
    """`def sample_data(loader): while True: for batch in loader: yield batch` (or `yield from loader`), a
    function of this module called with one of `loaders`: its endless loop passes over the loader again and
    again, each pass an epoch. That `while` loop; None when there is no such call."""
    facts = ctx.facts
    for site in facts.calls:
        func = site.node.func
        if not (isinstance(func, ast.Name) and func.id in facts.functions) or not site.node.args:
            continue
        index = next((i for i, a in enumerate(site.node.args) if dotted(a) in loaders), None)
        function = facts.functions[func.id]
        params = [a.arg for a in function.args.args]
        if index is None or index >= len(params):
            continue
        loop = _endless_pass_over(function, params[index])
        if loop is not None:
            return loop
    return None


def _endless_pass_over(function: ast.AST, name: str) -> Optional[ast.While]:
    for node in ast.walk(function):
        if not (isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and node.test.value is True) or any(
                isinstance(stmt, (ast.Break, ast.Return)) for stmt in node.body):
            continue
        for inner in node.body:
            if isinstance(inner, ast.For) and dotted(inner.iter) == name and any(
                    isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(inner)):
                return node
            if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.YieldFrom) and dotted(inner.value.value) == name:
                return node
    return None


def _epoch_loop_calling_method(ctx: PythonContext, loaders: set) -> Optional[ast.AST]:
    """`def train_epoch(self): for x, y in self.train_loader: ...` called as `self.train_epoch()` inside a
    `for` of another method of the class (a trainer's `fit`): that outer loop, the epoch loop."""
    facts = ctx.facts
    methods = set()
    for node, where in facts.of_type(ast.For):
        name = dotted(iterated_expression(node.iter))
        if name in loaders and name.startswith("self.") and not where.loops and where.class_ is not None \
                and isinstance(where.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.add((where.class_.name, where.function.name))
    for klass, method in methods:
        for site in facts.method_calls(method):
            where = site.ctx
            if site.receiver == "self" and where.class_ is not None and where.class_.name == klass and where.loops \
                    and isinstance(where.loops[-1], ast.For) and where.function is not None \
                    and where.function.name != method:
                return where.loops[-1]
    return None


def _calls_from_modules_without_set_epoch(project) -> Iterator[tuple]:
    """(module, ProjectCall) for each project call of a module that neither calls set_epoch nor shards
    its data through a framework."""
    for caller, exports in project.modules.items():
        summary = project.scripts.get(caller)
        if not exports.calls_set_epoch and summary is not None and not summary.framework_shards_data:
            for call in exports.calls:
                yield caller, call


def _class_loops(program, symbol):
    """ClassLoops of a project class symbol, over its lineage."""
    return class_epoch_loops(program.lineage(symbol.path, symbol.name) or [symbol])


@program_check("DSL302")
def sampler_epoch_loop_in_another_module(ctx: SetupContext) -> Iterator[Report]:
    """A loader with a shuffling DistributedSampler handed to a project class or function that
    loops over epochs, while neither module calls set_epoch (a trainer class elsewhere)."""
    project = ctx.project
    program = project.program
    for caller, call in _calls_from_modules_without_set_epoch(project):
        shuffled = [a for a in call.arguments if _shuffling_loader(project, caller, a)]
        symbol = program.symbol(caller, call.local) if shuffled else None
        if symbol is None:
            continue
        if symbol.klass is not None:  # (its __init__, epoch loop and loop over the loader may be its bases')
            found = _class_loops(program, symbol)
            init = found.init.klass.methods["__init__"] if found.init is not None else None
            loops, modules = found.stored_params(), found.modules
        else:
            init, modules = symbol.function, {norm_path(symbol.path)}
            loops = {param: ((symbol, *loop), param)
                     for param, loop in function_epoch_iterated(symbol.function).items()}
        if init is None or _may_set_epoch(program, modules):
            continue
        for argument in shuffled:
            param = init.param_for(argument.position, argument.keyword, method=symbol.klass is not None)
            if param not in loops:
                continue
            (holder, _, span, counter), stored = loops[param]
            yield Report(span, f"this epoch loop never calls {short(stored, 24)}.sampler.set_epoch(epoch) (loader "
                         f"from {file_label(caller, 20)}:{argument.loader_row}), so every epoch repeats one "
                         "order; add the call", fix=_loop_set_epoch_fix(stored, span, counter), path=holder.path)


@program_check("DSL302")
def inherited_loader_in_epoch_loop(ctx: SetupContext) -> Iterator[Report]:
    """An epoch loop over `self.loader` in a class whose lineage stores a DataLoader with a shuffling
    DistributedSampler there in another module (`Base.__init__` in base.py, `Sub(Base).fit()` in
    train.py), while no module of the lineage calls set_epoch. One file is the per-file rule's."""
    project = ctx.project
    reported = set()
    for path, exports in project.modules.items():
        for name, klass in exports.classes.items():
            if not klass.bases or not klass.methods and len(klass.bases) < 2:
                continue  # (one that only joins several project bases is where their methods meet)
            lineage = project.program.lineage(path, name)
            modules = {s.path for s in lineage}
            if len(modules) < 2 or any(getattr(project.modules.get(m), "calls_set_epoch", True) for m in modules) \
                    or any(getattr(project.scripts.get(m), "framework_shards_data", None) for m in modules):
                continue
            for found in inherited_epoch_loops(lineage):
                key = (found.loop.path, found.span, found.attribute)
                if found.kind != "distributed-shuffle" or found.loop.path == found.store.path or key in reported:
                    continue
                reported.add(key)
                span, counter, attr = found.span, found.counter, found.attribute
                fix = _loop_set_epoch_fix(attr, span, counter)
                yield Report(span, f"this epoch loop never calls {short(attr, 24)}.sampler.set_epoch(epoch) (loader "
                             f"stored by {short(found.store.name, 20)} in {file_label(found.store.path, 20)}:{found.row}), "
                             "so every epoch repeats one order; add the call", fix=fix, path=found.loop.path)


@program_check("DSL302")
def instance_loader_in_epoch_loop(ctx: SetupContext) -> Iterator[Report]:
    """An epoch loop over `data.loader` where `data = AudioData(cfg)` is an instance of a project class of
    another module that stores a DataLoader with a shuffling DistributedSampler in `self.loader`, while no
    module of the program calls set_epoch (or shards the data through a framework)."""
    project = ctx.project
    program = project.program
    for path, exports in project.modules.items():
        for function in exports.functions.values():
            instances = dict(getattr(function, "instances", ()))
            for name, span, counter in function.epoch_iterated if instances else ():
                head, _, attr = name.partition(".")
                symbol = program.symbol(path, instances[head]) if head in instances else None
                klass = symbol.klass if symbol is not None else None
                found = klass.attributes.get(f"self.{attr}") if klass is not None else None
                if found is None or found[0] != "distributed-shuffle" or symbol.path == norm_path(path):
                    continue
                modules = program.program_modules(path) | {symbol.path}
                if _may_set_epoch(program, modules) or any(
                        getattr(project.scripts.get(program.display.get(m, m)), "framework_shards_data", None)
                        for m in modules):
                    continue
                fix = _loop_set_epoch_fix(name, span, counter)
                store = program.display.get(symbol.path, symbol.path)
                yield Report(span, f"this epoch loop never calls {short(name, 24)}.sampler.set_epoch(epoch) (loader "
                             f"stored by {short(klass.name, 20)} in {file_label(store, 20)}:{found[1]}), so every epoch "
                             "repeats one order; add the call", fix=fix, path=path)


@program_check("DSL302")
def datamodule_loader_in_epoch_loop(ctx: SetupContext) -> Iterator[Report]:
    """`Trainer(model, dm).fit()`, where `dm = SpeechDataModule(...)` is an instance of a project class whose
    `train_dataloader()` returns a DataLoader with a shuffling DistributedSampler, and the trainer's `__init__`
    stores `self.train_loader = datamodule.train_dataloader()`, which its epoch loop iterates, while no
    module of the program calls set_epoch (or shards the data through a framework)."""
    project = ctx.project
    program = project.program
    for caller, call in _calls_from_modules_without_set_epoch(project):
        made = [a for a in call.arguments if a.made_by]
        symbol = program.symbol(caller, call.local) if made else None
        found = _class_loops(program, symbol) if symbol is not None and symbol.klass is not None else None
        if found is None or found.init is None or not found.init.klass.init_results:
            continue
        init, loops = found.init.klass.methods["__init__"], found.loops
        for argument in made:
            param = init.param_for(argument.position, argument.keyword, method=True)
            instance = program.symbol(caller, argument.made_by)
            if param is None or instance is None or instance.klass is None:
                continue
            for attr, (given, method) in found.init.klass.init_results.items():
                returner = instance.klass.methods.get(method) if given == param and attr in loops else None
                loader = returner.loader_returned(None) if returner is not None else None
                if loader is None or loader[0] != "distributed-shuffle":
                    continue
                modules = program.program_modules(caller) | found.modules | {norm_path(instance.path)}
                if _may_set_epoch(program, modules):
                    continue
                holder, _, span, counter = loops[attr]
                yield Report(span, f"this epoch loop never calls {short(attr, 24)}.sampler.set_epoch(epoch) (loader "
                             f"from {short(instance.name, 20)}.{short(method, 24)} in {file_label(instance.path, 20)}:"
                             f"{loader[1]}), so every epoch repeats one order; add the call",
                             fix=_loop_set_epoch_fix(attr, span, counter), path=holder.path)


def _loop_set_epoch_fix(loader: str, span, counter: str):
    """The safe fix that calls `loader.sampler.set_epoch(counter)` first in the epoch loop at `span`
    (None without a counter)."""
    if not counter:
        return None
    return make_fix("insert-set-epoch", f"Call {short(loader, 28)}.sampler.set_epoch({short(counter, 20)}) at the start "
                    "of each epoch", Applicability.SAFE, row=span.start.row, column=span.start.column,
                    sampler=f"{loader}.sampler", variable=counter)


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


INIT_PG = "torch.distributed.init_process_group"
INIT_INFERENCE = "deepspeed.init_inference"
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
    if expr is None or not model.facts.calls_to(*_WRAPPERS):
        return None  # no wrapper is built in this module: no value here is one (and no scope is built)
    value = model.value_of(expr)
    return value if _call_to(model, value, *_WRAPPERS) else None


def _compiled_module(model: SemanticModel, expr: Optional[ast.AST]) -> Optional[ast.expr]:
    """`x` of the `torch.compile(x, ...)` that `expr` evaluates to."""
    if expr is None or not model.facts.calls_to("torch.compile"):
        return None
    value = model.value_of(expr)
    if _call_to(model, value, "torch.compile") and value.args and not isinstance(value.args[0], ast.Starred):
        return value.args[0]
    return None


def _is_ddp(model: SemanticModel, expr: ast.AST, depth: int = 0) -> bool:
    """`expr` holds a DistributedDataParallel wrapper (`ddp`, `self.model`), not a name that shadows
    one; also a parameter (`self.model` stored from `__init__`'s `model`) that every call of its
    def in this module (`Trainer(ddp, ...)`) passes one for, and a dataclass field every
    construction of the object fills with one (`state.model` of `State(model=ddp)`); and
    `torch.compile(ddp)`, whose OptimizedModule forwards attribute reads (`.module`) to it."""
    compiled = _compiled_module(model, expr) if depth < 3 else None
    if compiled is not None:
        return _is_ddp(model, compiled, depth + 1)
    call = _wrapper_call(model, expr)
    if call is not None:
        return model.resolve(call.func) == DDP
    held = constructor_fields(model, expr) if depth < 3 and model.facts.calls_to(DDP) else []
    if held:
        return all(_is_ddp(model, value, depth + 1) for value in held)
    value = model.value_of(expr) if expr is not None and model.facts.calls_to(DDP) else None
    binding = model.binding_of(value) if isinstance(value, ast.Name) else None
    if binding is None or binding.kind != "parameter":
        return False
    passed = arguments_for(model, binding.scope.node, binding.name)
    return bool(passed) and all(_call_to(model, _wrapper_call(model, given), DDP) for _, given in passed)


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


def _unused_ddp_mask(facts: ScriptFacts, model: SemanticModel) -> Optional[list]:
    """Spans of the text that name DDP only to build a wrapper nothing uses (`ddp = DDP(model)`
    while the loop calls `model(x)`), with the imports of the name: an unused wrapper never
    all-reduces. None when some DDP(...) may be used: called, passed on, returned, stored, or read
    for anything but `.module` (or is no plain `name = DDP(...)`)."""
    calls = facts.calls_to(DDP)
    if not calls:
        return []
    bound = {id(b.value): b for b in model.names_bound_to(DDP) if b.index is None}
    spans = []
    for site in calls:
        binding = bound.get(id(site.node))
        if binding is None or "." in binding.name or binding.kind != "assignment":
            return None
        for use in model.uses_of(binding):
            parent = model.parent_of(use)
            if not (isinstance(parent, ast.Attribute) and parent.value is use and parent.attr == "module"):
                return None
        spans.append(facts.lines.span_of_node(site.node.func))
    for node, _ in facts.of_type(ast.ImportFrom):
        if any(alias.name == "DistributedDataParallel" for alias in node.names):
            spans.append(facts.lines.span_of_node(node))
    return spans


def _masked(text: str, spans: list) -> str:
    for span in sorted(spans, key=lambda s: s.start_offset, reverse=True):
        text = text[:span.start_offset] + " " * (span.end_offset - span.start_offset) + text[span.end_offset:]
    return text


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
           for q in facts._by_qualname):
        return
    unused = _unused_ddp_mask(facts, model)
    if unused is None or _SYNC_WORDS.search(_masked(facts.text, unused) if unused else facts.text):
        return  # a wrapper, a collective or something we do not model: it may synchronise
    wrappers = facts.calls_to(DDP)
    unused_note = f" (the DDP wrapper of line {wrappers[0].node.lineno} is never called)" if wrappers else ""
    yield Report(backwards[0].node, f"a process group (line {pg[0].node.lineno}) but nothing averages the gradients{unused_note}, "
                 "so every rank trains its own copy; wrap the model in DistributedDataParallel before the optimizer"
                 + (" and train through the wrapper" if wrappers else ""))


# -- DSL304 ----------------------------------------------------------------------------------

def _module_hop_owner(func: ast.expr) -> Optional[ast.expr]:
    """`x` of a callee `x.module` or `x.module.forward`."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    return func.value if isinstance(func, ast.Attribute) and func.attr == "module" else None


def _module_unwrap_owner(value: Optional[ast.expr]) -> Optional[ast.expr]:
    """`x` of `x.module`, `x.module.forward` or the unwrap idiom `getattr(x, "module"[, x])`."""
    owner = _module_hop_owner(value) if isinstance(value, ast.Attribute) else None
    if owner is None and isinstance(value, ast.Call) and dotted(value.func) == "getattr" and not value.keywords \
            and len(value.args) in (2, 3) and literal(value.args[1]) == "module" and (
            len(value.args) == 2 or dotted(value.args[2]) == dotted(value.args[0])):
        owner = value.args[0]
    return owner


def _module_alias_names(facts: ScriptFacts) -> set:
    """Names assigned `<x>.module` (or the getattr unwrap of it) other than `x` itself: the only
    plain names worth resolving as a module hop (`model = model.module` drops the wrapper: no alias)."""
    names = set()
    for node, _ in facts.of_type(ast.Assign):
        owner = _module_unwrap_owner(node.value)
        if owner is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id != dotted(owner):
            names.add(node.targets[0].id)
    return names


def _module_alias_owner(model: SemanticModel, name: ast.Name) -> Optional[ast.expr]:
    """The wrapper `x` when the one binding of `name` that reaches here holds `x.module`."""
    binding = model.binding_of(name)
    if binding is None or binding.kind != "assignment" or binding.index is not None:
        return None
    return _module_unwrap_owner(binding.value)


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
    if is_test_module(ctx.path) or _reduces_gradients_by_hand(facts):
        return  # (a test that calls .module checks DDP's internals on purpose)
    model = semantic_model(facts)
    local = bool(facts.calls_to(DDP))
    # Without a DDP built here, only `self.x.module(...)` of a class given the wrapper elsewhere.
    candidates = facts.of_type(ast.Call) if local else [
        (s.node, s.ctx) for s in facts.method_calls("module") + facts.method_calls("forward") if s.ctx.class_]
    aliases = _module_alias_names(facts) if local or "module" in facts.text else set()
    if not local and aliases:  # `core = getattr(self.model, "module", self.model)` ... `core(**batch)` in a class
        candidates += [(s.node, s.ctx) for s in facts.calls if s.ctx.class_ and s.receiver is None
                       and isinstance(s.node.func, ast.Name) and s.node.func.id in aliases]
    for node, where in candidates:
        owner, label = _module_hop_owner(node.func), f"{short(ast.unparse(node.func), 30)}(...)"
        if owner is None and isinstance(node.func, ast.Name) and node.func.id in aliases:
            owner = _module_alias_owner(model, node.func)  # `forward = ddp.module` ... `forward(x)`
            label = f"{label}, that is {short(ast.unparse(owner), 20)}.module(...)," if owner is not None else label
        if owner is None or grad_disabled_at(facts, where) or not _runs_backward(facts, where.function):
            continue
        needs = None
        if not (local and _is_ddp(model, owner)):
            needs = _init_parameter(model, owner) or (_imported_dataclass_field(model, owner) if local else None) \
                or _mixin_attribute(model, owner, where)
            if needs is None:
                continue
        wrapper = dotted(owner)
        span = facts.lines.span_of_node(node.func)
        yield Report(node.func, f"{label} in a training step skips DDP's forward and "
                     f"its gradient all-reduce; call {short(wrapper, 24)}(...) instead",
                     fix=make_fix("call-ddp-wrapper", f"Call {wrapper}(...) instead", Applicability.UNSAFE,
                                  row=span.start.row, column=span.start.column, end_row=span.end.row,
                                  end_column=span.end.column, owner=wrapper),
                     needs=needs)


def _init_parameter(model: SemanticModel, owner: ast.expr) -> Optional[tuple]:
    """`self.x` stored from a parameter of the `__init__` of a module-level class: the decider's
    question whether the calls of that class in other modules pass a DDP wrapper for it."""
    if not isinstance(owner, ast.Attribute) or not isinstance(owner.value, ast.Name):
        return None
    value = model.value_of(owner)
    binding = model.binding_of(value) if isinstance(value, ast.Name) and value is not owner else None
    if binding is None or binding.kind != "parameter" or binding.position is None:
        return None
    init, cls = binding.scope.node, binding.scope.parent
    if getattr(init, "name", None) != "__init__" or cls is None or cls.kind != "class" or cls.parent is None \
            or cls.parent.kind != "module":
        return None
    if arguments_for(model, init, binding.name):
        return None  # the class is built here, and `_is_ddp` found what these calls pass is no DDP
    return ("init-argument-is-ddp", (("klass", cls.node.name), ("param", binding.name),
                                     ("position", binding.position - 1)))


def _mixin_attribute(model: SemanticModel, owner: ast.expr, where) -> Optional[tuple]:
    """`self.model` in a method of a module-level class that never stores it (a mixin): the decider's
    question whether the classes built on it store a DDP wrapper there from their `__init__`."""
    klass = where.class_
    if not (isinstance(owner, ast.Attribute) and dotted(owner.value) == "self") or klass is None \
            or klass not in model.facts.tree.body \
            or any(dotted(store.value) == "self" for store in model.attribute_stores(owner.attr)):
        return None
    return ("mixin-attribute-is-ddp", (("klass", klass.name), ("attr", dotted(owner))))


@decider("mixin-attribute-is-ddp")
def _decide_mixin_attribute_is_ddp(finding, project, params):
    """Keep the mixin's `self.x.module(...)` when a project class built on the mixin stores a parameter
    of its `__init__` in `self.x` and every call of that class that says what it passes gives a DDP
    wrapper for it."""
    program = project.program
    for lineage in program.lineages_through(finding.path, params["klass"]):
        init = class_epoch_loops(lineage).init
        param = next((p for p, attr in init.klass.init_stores.items() if attr == params["attr"]), None) \
            if init is not None else None
        if param is None:
            continue
        params_of_init = init.klass.methods["__init__"].params
        position = params_of_init.index(param) - 1 if param in params_of_init else None
        ask = {"klass": lineage[0].name, "param": param, "position": position, "path": lineage[0].path}
        if _decide_init_argument_is_ddp(finding, project, ask) is not None:
            return finding
    return None


def _imported_dataclass_field(model: SemanticModel, owner: ast.expr) -> Optional[tuple]:
    """`state.model` where every `State(...)` that built `state` passes a DDP wrapper for `model` and
    `State` comes from another module: the decider's question whether that class is a dataclass."""
    found = imported_constructor_fields(model, owner)
    if found is None or not all(_is_ddp(model, value, 1) for value in found[1]):
        return None
    return ("imported-dataclass-field", (("klass", found[0]), ("field", owner.attr)))


@decider("imported-dataclass-field")
def _decide_imported_dataclass_field(finding, project, params):
    """Keep `state.model.module(...)` when the project module `State` comes from makes it a
    dataclass (whose `__init__` stores the keyword as the field) without an `__init__` or
    `__post_init__` of its own."""
    symbol = project.program.symbol(finding.path, params["klass"])
    klass = symbol.klass if symbol is not None else None
    if klass is None or not klass.is_dataclass or {"__init__", "__post_init__"} & {*klass.methods, *klass.dropped_methods}:
        return None
    return finding


@decider("init-argument-is-ddp")
def _decide_init_argument_is_ddp(finding, project, params):
    """Keep `self.x.module(...)` when the project's calls of the class that say what they pass for
    the parameter all pass a DistributedDataParallel wrapper (and there is one)."""
    program = project.program
    passed = []
    for caller, exports in project.modules.items():
        for call in exports.calls:
            symbol = program.symbol(caller, call.local)
            if symbol is None or symbol.klass is None or symbol.name != params["klass"] \
                    or norm_path(symbol.path) != norm_path(params.get("path", finding.path)):
                continue
            given = next((a for a in call.arguments if a.keyword == params["param"] or
                          (a.position is not None and a.position == params["position"])), None)
            if given is not None:
                passed.append(given.wrapper)
    return finding if passed and all(w == "DDP" for w in passed) else None


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
        elif _given_to_no_grad_function(facts, model, use):
            continue
        elif not (_called(model, use) and _no_grad(facts, holder)):
            return None
    return hops


def _given_to_no_grad_function(facts: ScriptFacts, model: SemanticModel, use: ast.Name) -> bool:
    """`run_eval(ddp, loader)` where `run_eval` is a def of this module whose whole body runs under
    no-grad (`@torch.inference_mode()`): nothing in it can train the model."""
    call = model.parent_of(use)
    if not (isinstance(call, ast.Call) and use in call.args and isinstance(call.func, ast.Name)):
        return False
    binding = model.binding_of(call.func)
    function = binding.node if binding is not None and binding.kind == "def" else None
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and bool(function.body) and \
        all(_no_grad(facts, statement) for statement in function.body)


def _only_run_untrained(facts: ScriptFacts, model: SemanticModel, wrapper: Binding, trains: bool) -> bool:
    """`model = DDP(net)` in a function of a file that trains nothing (no backward, optimizer or
    `.step()`), called (under no-grad: `_inference_hops` saw to that) and neither it nor `net`
    handed to other code, which might train it."""
    if trains or not _local(wrapper) or facts.method_calls("backward") or facts.method_calls("step") \
            or next(facts.calls_with_prefix("torch.optim."), None) is not None:
        return False
    if not any(_called(model, use) or _given_to_no_grad_function(facts, model, use) for use in model.uses_of(wrapper)):
        return False
    inner = wrapper.value.args[0]
    while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in ("cuda", "to"):
        inner = inner.func.value
    if not isinstance(inner, ast.Name):
        return isinstance(inner, ast.Call)  # a model built in the call: `DDP(Net().cuda())`
    where = facts.context_of(wrapper.value)
    function = where.function if where is not None else None
    if function is None or inner.id in {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}:
        return False
    for use in ast.walk(function):  # every read of the name in the function: only moved or filled
        if isinstance(use, ast.Name) and use.id == inner.id and isinstance(use.ctx, ast.Load) and use is not inner:
            holder = model.parent_of(use)
            if not (_sets_up(holder) and _called(model, holder)):
                return False
            result = model.parent_of(model.parent_of(holder))  # what takes `net.cuda()`: nothing, or `net`
            if not (isinstance(result, ast.Expr) or model.parent_of(holder) is wrapper.value.args[0] or (
                    isinstance(result, ast.Assign) and [dotted(t) for t in result.targets] == [inner.id])):
                return False
    return True


def _sets_up(attribute: ast.AST) -> bool:
    """`net.cuda()`, `net.load_state_dict(...)`: a method that moves or fills the model."""
    return isinstance(attribute, ast.Attribute) and attribute.attr in ("cuda", "to", "eval", "load_state_dict", "half",
                                                                        "float", "bfloat16")


def _local(wrapper: Binding) -> bool:
    """Bound to a name of a function: every use of it is in this file, where `uses_of` sees it."""
    return "." not in wrapper.name and wrapper.scope.kind == "function"


@python_rule("DSL305", "ddp-for-inference", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def ddp_for_inference(ctx: PythonContext) -> Iterator[Report]:
    """DDP around a model that is never trained: reducer buckets and a weight broadcast for nothing."""
    facts = ctx.facts
    prepares = bool(facts.method_calls("prepare")) and facts.uses("accelerate")
    if not facts.calls_to(DDP) and not prepares:
        return
    model = semantic_model(facts)
    trains = any(s.qualname is None for s in facts.method_calls("backward")) or bool(
        facts.calls_to(*LIGHTNING_TRAINERS, *FABRIC, DEEPSPEED_INITIALIZE))
    if prepares:
        yield from _prepared_for_inference(facts, model, trains)
    for wrapper in model.names_bound_to(DDP) if facts.calls_to(DDP) else ():
        call = wrapper.value
        if not call.args or isinstance(call.args[0], ast.Starred):
            continue
        engine = _wraps_inference_engine(model, call.args[0])
        strict = trains and not engine
        if strict and not _local(wrapper):
            continue  # the file trains, and code we cannot see may train this model through it
        hops = _inference_hops(facts, model, wrapper, strict)
        if hops is None or not (hops or engine or _only_run_untrained(facts, model, wrapper, trains)):
            continue
        why = "a deepspeed.init_inference model" if engine else "a model used only for inference"
        yield Report(call, f"DistributedDataParallel around {why} only costs memory and a weight broadcast; use the "
                     "model directly",
                     fix=_remove_wrapper_fix(facts, model, wrapper, hops))


# `prepared.<attr>` that only reads the model: the one-process arm of `m.module.generate if n > 1 else m.generate`.
_UNWRAPPED_READS = frozenset(("generate", "config", "generation_config", "device", "dtype"))


def _prepared_for_inference(facts: ScriptFacts, model: SemanticModel, trains: bool) -> Iterator[Report]:
    """`model = accelerator.prepare(model)` (DDP in a multi-process DDP launch) then only
    `model.module.generate(...)` / `accelerator.unwrap_model(model).generate(...)`: the launch decides."""
    for prepared in prepared_models(facts, model):
        wrapper = prepared.binding
        if trains and not _local(wrapper):
            continue  # the file trains, and code we cannot see may train this model through it
        hops = _prepared_inference_hops(facts, model, wrapper, strict=trains)
        if not hops:
            continue
        through_module = "module" in hops
        how = ".module" if through_module else "unwrap_model()"
        yield Report(prepared.argument, f"accelerator.prepare() wraps this model in DistributedDataParallel when the "
                     f"launch runs several processes, yet it is only used for inference (through {how}): gradient "
                     "buckets and a weight broadcast for nothing; call requires_grad_(False) on it before prepare "
                     "(accelerate then skips DDP), or move it to accelerator.device instead",
                     needs=("accelerate-launch-ddp", (("through_module", through_module),
                                                      ("built_here", prepared.accelerator is not None))))


def _prepared_inference_hops(facts: ScriptFacts, model: SemanticModel, wrapper: Binding,
                             strict: bool) -> Optional[list[str]]:
    """"module" for each `w.module.<attr>`, "unwrap" for each `accelerator.unwrap_model(w).<attr>`
    (neither its parameters nor train()) when every use of the prepared `w` is inference: those,
    `w.eval()`, a read of `w.generate`/`w.config`, `w(...)` under no-grad; else None. With `strict`
    (the file trains some model) the hops run under no-grad too."""
    hops = []
    for use in model.uses_of(wrapper):
        holder = model.parent_of(use)
        if isinstance(holder, ast.Attribute) and holder.attr == "module":
            kind, hop = "module", holder
        elif isinstance(holder, ast.Call) and holder.args == [use] and not holder.keywords \
                and isinstance(holder.func, ast.Attribute) and holder.func.attr == "unwrap_model":
            kind, hop = "unwrap", holder
        elif isinstance(holder, ast.Attribute) and holder.attr == "eval":
            continue
        elif isinstance(holder, ast.Attribute) and holder.attr in _UNWRAPPED_READS:
            if strict and holder.attr == "generate" and not _no_grad(facts, holder):
                return None
            continue
        elif _given_to_no_grad_function(facts, model, use) or (_called(model, use) and _no_grad(facts, holder)):
            continue
        else:
            return None
        outer = model.parent_of(hop)
        in_place = (isinstance(outer, ast.Attribute) and outer.attr not in _TRAINING_ATTRS
                    and outer.attr != "module") or (kind == "module" and _called(model, hop))
        if not in_place or (strict and not _no_grad(facts, hop)):
            return None
        hops.append(kind)
    return hops


# accelerate's distributed types whose prepare() does not build DistributedDataParallel
_NOT_DDP_TYPES = frozenset(("DEEPSPEED", "FSDP", "MEGATRON_LM", "XLA", "NO"))


@decider("accelerate-launch-ddp")
def _decide_accelerate_launch_ddp(finding, project, params):
    """Keep an inference-only prepared model when a launch of its program is `accelerate launch` of
    a multi-device DDP type (`--multi_gpu`, a config's MULTI_GPU) with several processes, or, when
    no launch says, the script's own `.module` hop shows it expects the wrapper and it builds the
    Accelerator without a plugin. Drop it when a launch runs one process, DeepSpeed, FSDP, Megatron
    or XLA, or reads an accelerate config dslint cannot."""
    from ..facts.program import norm_path

    if single_process_launches(project, finding.path):
        return None
    entries = {norm_path(p) for p in project.program.programs_of(finding.path)} or {norm_path(finding.path)}
    shown = None
    for setup in link_setups(project):
        if setup.launch_path is None or norm_path(setup.script_path) not in entries or setup.spawner_kind != "accelerate":
            continue
        launch = setup.accelerate
        if launch is None or launch.unknown or launch.distributed_type in _NOT_DDP_TYPES:
            return None
        if launch.distributed_type is not None and launch.num_processes != 1 and shown is None:
            shown = setup
    if shown is not None:
        where = (shown.launch_path, shown.command.span, f"accelerate launch ({shown.accelerate.distributed_type})") \
            if shown.command is not None else None
        return replace(finding, related=[*finding.related, where]) if where else finding
    return finding if params["through_module"] and params["built_here"] else None


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
                    unused_import=_import_left_unused(model, call.func))


def _alone_in_block(model: SemanticModel, statement: ast.stmt) -> bool:
    holder = model.parent_of(statement) or model.tree
    return any(getattr(holder, name, None) == [statement] for name in ("body", "orelse", "finalbody"))


def _import_left_unused(model: SemanticModel, callee: ast.expr) -> Optional[tuple]:
    """(module, name, asname) of the `from module import name as asname` that binds the callee,
    when the callee is its only use (removing the call leaves the import unused)."""
    binding = model.binding_of(callee) if isinstance(callee, ast.Name) else None
    if binding is None or binding.kind != "from-import" or binding.node.level:
        return None
    if model.uses_of(binding) != [callee]:
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
            returned = _project_call_result(model, arg, methods=True) if arg is not None else None
            if returned is not None and returned[1] is None:
                yield Report(arg, f"{short(returned[0], 24)}() returns a model already wrapped, and {what} wraps it "
                             "again, so gradients are reduced twice; return the plain model",
                             needs=("returned-model-is-wrapped", (("callee", returned[0]),)))
            continue
        yield Report(arg, f"the model given to {what} is already wrapped in {_WRAPPERS[model.resolve(wrapper.func)]} "
                     f"(line {wrapper.lineno}), so gradients are reduced twice; pass the plain model")


@decider("returned-model-is-wrapped")
def _decide_returned_wrapped_model(finding, project, params):
    """Keep the finding when every return of the project function gives a DDP/FSDP wrapper."""
    symbol = project.program.callee(finding.path, params["callee"])
    returned = symbol.function.returns_wrapper if symbol is not None else None
    if returned is None:
        return None
    kind = "DistributedDataParallel" if returned[0] == "DDP" else "FullyShardedDataParallel"
    return replace(finding, message=finding.message.replace(
        "() returns a model already wrapped,",
        f"() ({file_label(symbol.path, 24)}:{returned[1]}) returns a model already wrapped in {kind},", 1))


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
            yield Report(site.node, f"{names[site.qualname]} inside LightningModule {short(site.ctx.class_.name, 20)}, "
                         "whose Trainer strategy already does this; choose the strategy on the Trainer")


# -- DSL308 ----------------------------------------------------------------------------------

def _uses(model: SemanticModel, bindings) -> set[int]:
    """ids of the loads that one of these bindings may be the value of (also as `self.x` after
    `self.x = engine` in a method)."""
    return {id(use) for b in bindings for use in _holding_loads(model, b)}


def _holding_loads(model: SemanticModel, binding: Binding, certain: bool = False) -> list:
    """The loads of the name (with `certain`, only those it is the one binding of) and of each
    `self.x` it was stored in (those that see that store)."""
    loads = [use for use in model.uses_of(binding) if not certain or model.binding_of(use) is binding]
    for stored in model.self_stores_of(binding):
        loads += [use for use in model.uses_of(stored) if model.binding_of(use) is stored]
    return loads


def _spelling_at(model: SemanticModel, binding: Binding, node: ast.AST) -> Optional[str]:
    """How the code at `node` names what `binding` holds: the name where it reaches there, or
    `self.x` in another method of the class that stored it there; None when neither does."""
    if "." in binding.name or binding in model.reaching(binding.name, node):
        return binding.name  # (`self.engine`, bound in `__init__`: the class's methods all see it)
    function = model.function_of(node)
    return next((stored.name for stored in model.self_stores_of(binding)
                 if any(model.function_of(use) is function for use in model.uses_of(stored))), None)


def _engine_is_driven(facts: ScriptFacts, model: SemanticModel, engine: Binding, optimizer: Optional[Binding]) -> bool:
    """`engine.step()` runs (recent DeepSpeed also hooks a plain `loss.backward()` then), or
    `engine.backward()`, or the optimizer's own (legacy FP16_Optimizer) backward."""
    on_engine = _uses(model, [engine])
    on_either = on_engine | _uses(model, [optimizer] if optimizer else [])
    return any(id(_receiver(s)) in on_engine for s in facts.method_calls("step")) or \
        any(id(_receiver(s)) in on_either for s in facts.method_calls("backward"))


def _plain_backwards(facts: ScriptFacts, model: SemanticModel, engine: Binding, engines: set[int]) -> list[CallSite]:
    """`loss.backward()` in the functions that call the engine's forward (not on an engine itself)."""
    forwards_in = {id(model.function_of(use)) for use in _holding_loads(model, engine) if _called(model, use)}
    return [s for s in facts.method_calls("backward") if s.qualname is None and dotted(_receiver(s))
            and id(_receiver(s)) not in engines and id(s.ctx.function) in forwards_in]


def _optimizer_steps(facts: ScriptFacts, model: SemanticModel, optimizer: Optional[Binding]) -> list[CallSite]:
    """`optimizer.step()` where the name certainly holds the optimizer DeepSpeed returned."""
    held = {id(use) for use in _holding_loads(model, optimizer, certain=True)} if optimizer is not None else set()
    return [s for s in facts.method_calls("step") if not s.node.args and id(_receiver(s)) in held]


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
                name = _spelling_at(model, engine, site.node)
                yield (_engine_backward_report(facts, site, name, dotted(_receiver(site)))
                       if site.attr == "backward" else _engine_step_report(facts, site, name, dotted(_receiver(site))))
        yield from _helper_bypasses(facts, model, engine, optimizer, reported)


def _helper_bypasses(facts: ScriptFacts, model: SemanticModel, engine: Binding, optimizer: Optional[Binding],
                     reported: set) -> Iterator[Report]:
    """A helper handed the engine (or its optimizer) that trains it as a plain module: in this
    module, at the helper's backward/step; for a project function of another module, at the call."""
    engine_loads = {id(use) for use in _holding_loads(model, engine)}
    optimizer_loads = {id(use) for use in _holding_loads(model, optimizer, certain=True)} if optimizer else set()
    for bypass in engine_bypasses(facts).values():
        function = bypass.function
        given = {name: [g for _, g in arguments_for(model, function, name)] for name in (*bypass.models, *bypass.steps)}
        handed = [name for name in bypass.models if any(id(g) in engine_loads for g in given[name])]
        # the helper's own name for the engine, where every call passes it (the fix edits the helper)
        spelling = handed[0] if len(handed) == 1 and all(id(g) in engine_loads for g in given[handed[0]]) else None
        sites = list(bypass.backwards) if handed else []
        sites += [s for name, steps in bypass.steps.items() if any(id(g) in optimizer_loads for g in given[name])
                  for s in steps]
        for site in sites:
            if id(site.node) not in reported:
                reported.add(id(site.node))
                yield (_engine_backward_report(facts, site, spelling, dotted(_receiver(site)))
                       if site.attr == "backward" else _engine_step_report(facts, site, spelling, dotted(_receiver(site))))
    yield from _imported_helper_calls(facts, model, engine, optimizer, engine_loads, optimizer_loads, reported)


def _imported_helper_calls(facts: ScriptFacts, model: SemanticModel, engine: Binding, optimizer: Optional[Binding],
                           engine_loads: set, optimizer_loads: set, reported: set) -> Iterator[Report]:
    """Calls of another module's function that pass the engine or its optimizer: the program decides
    (engine_bypass of the function's summary)."""
    imported = facts.imports.names.keys() | facts.imports.relative
    calls = {}
    for use in (*_holding_loads(model, engine), *(_holding_loads(model, optimizer, True) if optimizer else ())):
        holder = model.parent_of(use)
        holder = model.parent_of(holder) if isinstance(holder, ast.keyword) else holder
        if isinstance(holder, ast.Call) and holder.func is not use:
            calls[id(holder)] = holder
    loads = engine_loads | optimizer_loads
    for call in calls.values():
        passed = tuple((index, None, "engine" if id(arg) in engine_loads else "optimizer")
                       for index, arg in enumerate(call.args) if id(arg) in loads)
        passed += tuple((None, k.arg, "engine" if id(k.value) in engine_loads else "optimizer")
                        for k in call.keywords if k.arg and id(k.value) in loads)
        root = root_name(call.func) if passed else None
        if root is None or root.id not in imported or id(call) in reported \
                or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        callee, qualname = dotted(call.func), facts.callee_name(call)
        if callee is None or (qualname and is_library(qualname)):
            continue
        reported.add(id(call))
        yield Report(call, f"{short(callee, 24)}() trains the DeepSpeed engine passed here as a plain module, so "
                     "nothing reduces the gradients; use the engine's backward(loss) and step() in it",
                     needs=("helper-bypasses-engine", (("callee", callee), ("passed", passed))))


@decider("helper-bypasses-engine")
def _decide_helper_bypasses_engine(finding, project, params):
    """Keep the call when the project function calls the parameter given the engine as the model and
    then a plain backward(), or steps the parameter given the engine's optimizer."""
    symbol = project.program.callee(finding.path, params["callee"])
    function = symbol.function if symbol is not None and symbol.klass is None else None
    if function is None or not function.engine_bypass:
        return None
    models, backward_row, steps = function.engine_bypass
    steps = dict(steps)
    found = []
    for index, keyword, kind in params["passed"]:
        name = keyword if keyword is not None else (function.params[index] if index < len(function.params) else None)
        if kind == "engine" and name in models and backward_row:
            found.append((backward_row, "calls backward() on the loss of the engine passed here"))
        elif kind == "optimizer" and name in steps:
            found.append((steps[name], "steps the engine's optimizer passed here"))
    if not found:
        return None
    row, what = found[0]
    return replace(finding, message=f"{short(params['callee'], 24)}() ({file_label(symbol.path, 24)}:{row}) {what}, "
                   "so the DeepSpeed engine is bypassed; use the engine's backward(loss) and step() in it")


def _engine_step_report(facts: ScriptFacts, site: CallSite, engine: Optional[str], optimizer: str) -> Report:
    """(`engine` None: the code there has no name for the engine, so no fix is offered.)"""
    span = facts.lines.span_of_node(site.node)
    instead = f"call {short(engine, 24)}.step() instead" if engine else "call the engine's step() instead"
    return Report(site.node, f"{short(optimizer, 24)}.step() steps DeepSpeed's optimizer behind the engine's back; "
                  f"{instead}",
                  fix=make_fix("engine-step", f"Use {engine}.step()", Applicability.UNSAFE, row=span.start.row,
                               column=span.start.column, engine=engine, optimizer=optimizer) if engine else None)


def _engine_backward_report(facts: ScriptFacts, site: CallSite, engine: Optional[str], loss: str) -> Report:
    fix = None
    if engine is None:
        return Report(site.node, f"{short(loss, 16)}.backward() bypasses the DeepSpeed engine, so nothing reduces the "
                      "gradients; call the engine's backward(loss) and step()")
    if isinstance(site.ctx.parent, ast.Expr) and site.ctx.parent.value is site.node and not site.node.args \
            and not site.node.keywords:
        span = facts.lines.span_of_node(site.node)
        fix = make_fix("engine-backward", f"Use {engine}.backward({loss})", Applicability.UNSAFE,
                       row=span.start.row, column=span.start.column, engine=engine, loss=loss)
    engine, loss = short(engine, 20), short(loss, 16)
    return Report(site.node, f"{loss}.backward() bypasses the DeepSpeed engine '{engine}', so nothing reduces the "
                  f"gradients; use {engine}.backward({loss}) and {engine}.step()",
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
            if loader is None:
                returned = _project_call_result(model, arg)
                if returned is not None:
                    yield Report(arg, f"{short(returned[0], 24)}() returns a DataLoader that already has a "
                                 f"DistributedSampler and {site.attr}() (line {site.node.lineno}) shards it again "
                                 "(1/N² of the data per rank); build it with shuffle=True instead",
                                 needs=("returned-loader-has-distributed-sampler",
                                        (("callee", returned[0]), ("index", returned[1]))))
                continue
            if sampler is None or not _call_to(model, model.value_of(sampler), DISTRIBUTED_SAMPLER):
                continue
            yield Report(sampler, f"this DataLoader already has a DistributedSampler and {site.attr}() (line "
                         f"{site.node.lineno}) shards it again (1/N² of the data per rank); use shuffle=True instead")


def _project_call_result(model: SemanticModel, expr: ast.expr, methods: bool = False) -> Optional[tuple]:
    """(callee, unpack index or None) when `expr` holds what an imported function returns
    (`make_loader()`, `train, val = get_loaders()`); the project phase reads its summary. With
    `methods`, also a method of an imported class called on an instance (`Cls().method`), and
    `self.x` followed to its assignment."""
    index = None
    if methods and isinstance(expr, ast.Attribute):
        expr = model.value_of(expr)
    if isinstance(expr, ast.Name):
        binding = model.binding_of(expr)
        if binding is not None and binding.kind == "assignment" and isinstance(binding.value, ast.Call) \
                and binding.index is not None and len(binding.index) == 1:
            expr, index = binding.value, binding.index[0]
        else:
            expr = model.value_of(expr)
    if not isinstance(expr, ast.Call):
        return None
    method = instance_method(model, expr.func) if methods else None
    if method is not None:
        return method, index
    root = root_name(expr.func)
    binding = model.binding_of(root) if root is not None else None
    callee = dotted(expr.func)
    if binding is None or binding.kind not in ("import", "from-import") or callee is None:
        return None
    qualname = model.resolve(expr.func) or ""
    if is_library(qualname):
        return None  # torch.optim.AdamW(...): not a project function
    return callee, index


@decider("returned-loader-has-distributed-sampler")
def _decide_returned_distributed_loader(finding, project, params):
    """Keep the finding when the project function returns (that element as) a DataLoader with a
    DistributedSampler."""
    symbol = project.program.symbol(finding.path, params["callee"])
    function = symbol.function if symbol is not None else None
    returned = function.loader_returned(params["index"]) if function is not None else None
    if returned is None or returned[0] not in ("distributed", "distributed-shuffle"):
        return None
    return replace(finding, message=finding.message.replace(
        "() returns", f"() ({file_label(symbol.path, 24)}:{returned[1]}) returns", 1))
