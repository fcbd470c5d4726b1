"""What one module offers the rest of the program, as plain picklable data.

The per-file phase (a worker, cached by content) turns a module's `ast` into these summaries;
the project phase (`program.py`) links them. A summary states what a function or class does
with its arguments, never what its callers pass: that is the caller's summary (`ProjectCall`).

- `ImportRef`: an import, kept raw (module, level, names); `program.py` resolves it to a file.
- `FunctionSummary`: selects the device; spawns processes; starts the process group; returns a
  DataLoader and where its sampler comes from, or a Lightning Trainer/Fabric;
  iterates a parameter inside an epoch loop; calls `set_epoch`; reaches a collective on every
  rank that calls it; reads a parameter's `.module.state_dict()` outside a gather; returns the
  global or the local rank (as a whole, or as an element of the tuple it returns).
- `ClassSummary`: field defaults (dataclasses, class attributes), what its methods store in
  `self.x` (a DataLoader and its sampler) and, for trainer-like classes, the same loop facts
  across its methods, mapped back to the `__init__` parameters.
- `ModuleExports.function_tables`: `LOADERS = {"a": build_a, ...}`, a constant table of functions.
- `ModuleExports.instance_calls`: `Trainer().setup` for `t = Trainer(cfg); t.setup()`, a method called on
  an instance of a class another module defines.
- `ProjectCall`: a call of a name imported from elsewhere, with what each argument is known to be.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from ..sources.names import dotted, is_library, root_name
from .collectives import collective_functions, engine_param_saves
from .config_dicts import DictTemplate, ModuleDicts, config_dict_names, module_constants, returned_template
from .keyword_splats import keyword_dicts
from .cuda import DDP, DEEPSPEED_INITIALIZE, FSDP, cuda_init_before_fork, cuda_touch, selects_device
from .dataset_shards import class_keeps_rank_share, split_per_rank
from .engine_params import engine_bypasses
from .distributed import FABRIC, LIGHTNING_TRAINERS, distributed_facts
from .helper_setups import ACCELERATORS, deepspeed_args_param, returned_plugin
from .cli_options import parser_function
from .conditions import grad_off_defs
from .program_effects import function_effects, returns_made_up
from .script import CallSite, ScriptFacts, assigned_name, epoch_counter, iterated_expression, literal
from .set_epoch_params import set_epoch_params
from .values import is_rank_expression
from .worker_counts import machine_field_default
from .zero3_reads import module_reads

DATALOADER = "torch.utils.data.DataLoader"
DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"
NO_VALUE = "<unknown>"  # a default that is not a literal


# Calls that differentiate inside the program's own code (not a training step's backward).
GRADIENT_CALLS = ("torch.autograd.grad", "torch.autograd.functional.jacobian", "torch.autograd.functional.hessian",
                  "torch.autograd.functional.vjp", "torch.autograd.functional.jvp", "torch.func.grad",
                  "torch.func.grad_and_value", "torch.func.jacrev", "torch.func.jacfwd", "torch.func.hessian",
                  "torch.func.vjp", "torch.func.jvp", "functorch.grad", "functorch.jacrev", "functorch.vjp")


# Roots of calls that may start the program's ranks as other processes (see ModuleExports.starts_processes).
_PROCESS_STARTERS = ("multiprocessing.", "torch.multiprocessing.", "subprocess.", "os.system", "os.popen", "os.exec",
                     "os.spawn", "os.fork", "ray.", "submitit.", "torch.distributed.run", "torch.distributed.launch",
                     "torch.distributed.elastic", "torch.distributed.launcher", "accelerate.notebook_launcher",
                     "accelerate.launchers", "deepspeed.launcher", "concurrent.futures.ProcessPoolExecutor")
_PROCESS_WORDS = ("Process", "process", "subprocess", "system", "popen", "exec", "spawn", "fork", "ray", "submitit",
                  "launch", "Pool")
# ... of which these start nothing
_NO_PROCESS = frozenset(("set_start_method", "get_start_method", "get_all_start_methods", "cpu_count", "current_process",
                         "parent_process", "active_children", "Queue", "SimpleQueue", "JoinableQueue", "Lock", "RLock",
                         "Event", "Condition", "Semaphore", "BoundedSemaphore", "Barrier", "Value", "Array",
                         "freeze_support", "set_sharing_strategy", "get_sharing_strategy", "get_context", "Manager",
                         "set_executable", "CalledProcessError", "TimeoutExpired", "DEVNULL", "PIPE", "STDOUT"))
# words of a command line that may start the program's ranks
_LAUNCH_WORDS = ("python", "torchrun", "deepspeed", "accelerate", "srun", "mpirun", "mpiexec", "launch", "sbatch", "$", "%")


def _starts_processes(facts: ScriptFacts) -> bool:
    """May the module start processes that run its program's ranks (see ModuleExports.starts_processes)? A
    shell command given as a text without a launcher word (`os.system("sed -i ...")`) does not."""
    for qualname, sites in facts._by_qualname.items():
        if not (qualname or "").startswith(_PROCESS_STARTERS) or qualname.rsplit(".", 1)[-1] in _NO_PROCESS:
            continue
        if not qualname.startswith(("subprocess.", "os.")):
            return True
        for site in sites:
            command = site.node.args[0] if site.node.args else None
            text = " ".join(str(n.value) for n in ast.walk(command) if isinstance(n, ast.Constant)
                            and isinstance(n.value, str)) if command is not None else ""
            if not text or any(word in text for word in _LAUNCH_WORDS):
                return True
    return False


@dataclass(frozen=True)
class ImportRef:
    module: str  # "textcls.data"; "" for `from . import x`
    level: int  # 0 absolute, 1 for `from .`, ...
    names: tuple  # ((name, local name), ...) of a from-import; () for `import a.b`
    local: Optional[str]  # the name `import a.b as c` binds (c), or a for `import a.b`
    row: int
    # runs whenever the module is imported: at module level (or in a class body), under no `if`
    # (`if TYPE_CHECKING:`, `if __name__ == "__main__":` ...), not inside a function
    at_import: bool = False


@dataclass
class FunctionSummary:
    name: str
    row: int
    params: tuple = ()  # positional-or-keyword parameters in order (methods include self)
    kwonly: tuple = ()
    defaults: dict = field(default_factory=dict)  # param -> literal default, NO_VALUE when not a literal
    selects_device: bool = False
    inits_cuda: Optional[tuple] = None  # (what, row) of the first call in its own body that initialises CUDA
    pins_visible_devices: bool = False  # writes CUDA_VISIBLE_DEVICES from a value chosen per call (a parameter)
    parsed_options: Optional[object] = None  # cli_options.ParsedOptions of the module's one parser, parsed here
    returns_pretrained: bool = False  # returns a from_pretrained model it only moves or puts in eval mode
    # What the program asks of a helper (program_effects.py; through this module's own calls too):
    # (what, Span) of evidence that it runs in several processes; the row of a set_device(<not a
    # literal>) it reaches (0: none); whether it calls torch.set_num_threads.
    multiprocess: Optional[tuple] = None
    set_device_row: int = 0
    sets_num_threads: bool = False
    spawns: Optional[tuple] = None  # (what, Span, nprocs or None, conditional) of an mp.spawn it reaches
    starts_group: Optional[tuple] = None  # (backend, Span) of an init_process_group without device_id it reaches
    # (kind "trainer" | "fabric", Span of the constructor, keywords whose value a caller may choose: those
    # that read a parameter, "**" for **kwargs) of a Lightning Trainer/Fabric it builds and returns
    returns_trainer: Optional[tuple] = None
    returns_strategy: bool = False  # a Lightning DeepSpeedStrategy(...) (script_setup.returned_strategies has it)
    # a returned DataLoader's sampler: "none", "distributed-shuffle", "distributed" (not shuffling),
    # "param:<p>", "iterable" (its dataset shards itself), "split" (its dataset is this rank's share:
    # dataset_shards.split_per_rank), "unknown"
    loader_sampler: Optional[str] = None
    loader_row: int = 0
    # `return train, val`: per element, (sampler as above, row, the returned name or "") or None
    # for an element that is no DataLoader; () when no tuple of loaders is returned (or the returns differ)
    returned_loaders: tuple = ()
    # (name, loop span, counter) per name (a parameter, `self.x`) iterated by a loop inside
    # another loop; the span (header only) and counter are the outer (epoch) loop's, counter ""
    # when unknown
    epoch_iterated: tuple = ()
    # (name, callee as written) for a name of `epoch_iterated`'s `name.attr` bound once, in the function, to
    # a call of an imported name (`data = AudioData(cfg)`: the loader is an attribute of a project class)
    instances: tuple = ()
    iterated: tuple = ()  # names iterated by any loop
    looped_calls: tuple = ()  # (`self.m`, loop span, counter) for methods called inside a loop
    calls_set_epoch: bool = False
    set_epoch_params: tuple = ()  # parameters (or their attributes) it calls .set_epoch on (set_epoch_params.py)
    # (label, why, kind, row, flags): a collective every rank calling it reaches (with flags: when the
    # call passes one of these parameters, default False, a value that may be true; collectives.py)
    collective: Optional[tuple] = None
    # the imported project functions it calls outside any `if` (`misc.all_reduce_mean(x)` in an `evaluate`):
    # a collective one of them reaches on every rank is reached by every rank that calls this one
    calls_unguarded: tuple = ()
    returns_optimizer: Optional[tuple] = None  # (torch.optim class, constructor span, keywords) it builds and returns
    # ("DDP" | "FSDP", row) when every `return` gives a DDP/FSDP(...) call (or a name bound to one)
    returns_wrapper: Optional[tuple] = None
    returns_config: Optional[DictTemplate] = None  # a DeepSpeed config dict it returns (config_dicts.py)
    # (param, dest): its `deepspeed.initialize` reads the config from `param.dest` (`args=args`: deepspeed_config)
    # (helper_setups.deepspeed_args_param)
    deepspeed_args: Optional[tuple] = None
    # (plugin Span, ((field, value, Span), ...)) of the `Accelerator(deepspeed_plugin=DeepSpeedPlugin(...))` it
    # returns (helper_setups.returned_plugin)
    returns_plugin: Optional[tuple] = None
    # (param, position or None, what, Span): `p.module.state_dict()` (or save_pretrained) read outside a
    # gather; empty partitions when a caller passes a ZeRO-3 engine for `p` (zero3_reads.py)
    unsharded_reads: tuple = ()
    # parameters whose DeepSpeed save (`p.save_checkpoint(...)`) only some ranks reach: DSL502 when a
    # caller passes an engine for one (collectives.engine_param_saves)
    gated_engine_saves: tuple = ()
    # what it would do to a DeepSpeed engine handed in (engine_params.EngineBypass.summary): (parameters
    # it calls as the model, row of a plain loss.backward() after that forward, ((parameter, row of its
    # .step()), ...)); DSL308 when a caller passes the engine or its optimizer for one
    engine_bypass: tuple = ()
    # every `return` gives data made up from a shape (`np.random.RandomState(0).rand(*shape)` as a
    # FloatTensor, constants; program_effects.returns_made_up): its caller's forward of it is a smoke test
    returns_made_up: bool = False
    # a decorator whose wrapper calls the function it wraps inside `with torch.inference_mode():` (no_grad,
    # set_grad_enabled(False)); a `@contextmanager` that turns autograd off before its one yield
    # (conditions.grad_off_decorator / grad_off_context): what runs under it runs with autograd off
    grad_off_decorator: bool = False
    grad_off_context: bool = False
    # the process rank it returns: ((None, kind),) when every return gives it, ((i, kind), ...) for
    # the elements of the tuples it returns; kind "global" or "local" (`returned_ranks`)
    returns_rank: tuple = ()

    def loader_returned(self, index: Optional[int]) -> Optional[tuple]:
        """(sampler source, row, returned name or "") of the DataLoader a call's value holds (`index`
        None) or the element `index` of the tuple it returns; None when it is not known to be one."""
        if index is None:
            return (self.loader_sampler, self.loader_row, "") if self.loader_sampler else None
        loaders = self.returned_loaders
        return loaders[index] if -len(loaders) <= index < len(loaders) else None

    def param_for(self, position: Optional[int], keyword: Optional[str], method: bool) -> Optional[str]:
        """The parameter an argument binds: by keyword, or by position (skipping `self`)."""
        if keyword is not None:
            return keyword if keyword in self.params or keyword in self.kwonly else None
        params = self.params[1:] if method else self.params
        return params[position] if position is not None and position < len(params) else None


@dataclass
class ClassSummary:
    name: str
    row: int
    bases: tuple = ()
    field_defaults: dict = field(default_factory=dict)  # field -> literal default (NO_VALUE when not a literal)
    machine_fields: tuple = ()  # fields whose default is the machine's CPU count (`field(default_factory=os.cpu_count)`)
    is_dataclass: bool = False
    methods: dict = field(default_factory=dict)  # name -> FunctionSummary
    init_stores: dict = field(default_factory=dict)  # __init__ parameter -> "self.x" it is stored in
    # "self.x" -> (parameter, method) for `self.x = param.method(...)` in __init__ (`self.train_loader =
    # datamodule.train_dataloader()`): what a caller's instance gives for that parameter says what it holds
    init_results: dict = field(default_factory=dict)
    module_hops: tuple = ()  # __init__ parameters whose stored `self.x` is called as `self.x.module(...)`
    # "self.x" -> (loader kind as ArgumentFact.loader, row) for an attribute its methods store a
    # DataLoader of this module in (every store agrees); "" kind for an attribute stored anything else
    attributes: dict = field(default_factory=dict)
    # the names of the methods it defines when `methods` was emptied (none says anything a rule asks):
    # a call of one of them on an instance is unknown, not the base class's method
    dropped_methods: tuple = ()
    derived: bool = False  # a base may be the project's: kept, so that a method is found up the chain
    keeps_rank_share: bool = False  # its __init__ keeps the rank's share of the data (dataset_shards)
    # classmethod -> the fields it passes to `cls(...)` ("*": any) when its every return is such a call
    # (`def from_args(cls, args): return cls(sharding=args.sharding)`): the others keep their defaults
    factory_fields: dict = field(default_factory=dict)
    # "self.x" its methods bind to the engine of deepspeed.initialize (`self.engine, self.optimizer, _, _ = ...`)
    engine_attributes: tuple = ()


@dataclass(frozen=True)
class ArgumentFact:
    """What dslint knows about one argument of a project call."""

    position: Optional[int]
    keyword: Optional[str]
    loader: Optional[str] = None  # "distributed-shuffle", "distributed", "plain", or None (not a loader)
    loader_row: int = 0
    # a name bound to a project call's result (`loader = build_loader(ds)`, `a, b = get_loaders()`):
    # (the callee's local name, the unpack index or None); the callee's summary says what it returns
    returned_by: Optional[tuple] = None
    wrapper: Optional[str] = None  # "DDP", "FSDP" or "engine" (deepspeed.initialize's) when it holds one
    # a name bound once to a transformers/diffusers `from_pretrained` model (in eval mode) that this module
    # never trains, freezes or hands anything else: `reference` of DPOTrainer(policy, reference, ...)
    pretrained: bool = False
    # a name bound once to what a project function or class returns (`teacher = load_teacher(path)`,
    # `dm = SpeechDataModule(...)`), whose every other use is a move, `.eval()` or a field read: the callee's
    # local name. FunctionSummary.returns_pretrained of it says whether that is an untouched pretrained
    # model; a class, what its methods give (a loader method of a datamodule)
    made_by: Optional[str] = None
    # `self.engine` passed from a method of a module-level class (a mixin's `checkpoint.save(self.engine)`):
    # (that class, "self.engine"); what the classes built on it store there says what it holds
    self_attribute: Optional[tuple] = None


@dataclass(frozen=True)
class ProjectCall:
    """A call of a name bound by an import (`make_loader(ds)`, `VocoderTrainer(...).run()`)."""

    local: str  # the local name called (`make_loader`, `utils.setup`)
    row: int  # `ast` positions (columns count UTF-8 bytes, 1-based here)
    column: int
    end_row: int
    end_column: int
    arguments: tuple = ()  # ArgumentFact, ...
    keywords: tuple = ()  # keyword names given
    star: bool = False  # *args or **kwargs given: any parameter may be bound
    function: Optional[str] = None  # the enclosing function's name


def imports_of(facts: ScriptFacts) -> list[ImportRef]:
    """Every import statement of the module (functions' own imports included), in source order."""
    refs = []
    for node, ctx in sorted(facts.of_type(ast.Import) + facts.of_type(ast.ImportFrom), key=lambda e: e[0].lineno):
        at_import = ctx.at_import_time and not ctx.guards
        if isinstance(node, ast.Import):
            for alias in node.names:
                refs.append(ImportRef(alias.name, 0, (), alias.asname or alias.name.split(".")[0], node.lineno,
                                      at_import))
        else:
            names = tuple((a.name, a.asname or a.name) for a in node.names if a.name != "*")
            refs.append(ImportRef(node.module or "", node.level or 0, names, None, node.lineno, at_import))
    return refs


def has_main_guard(tree: ast.Module) -> bool:
    for stmt in tree.body:
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            if "__main__" in test and "__name__" in test:
                return True
    return False


_NOTHING_INSIDE = ((), (), (), ())  # what `inside` gives a function with no calls, loops, returns or assignments


class _Summariser:
    def __init__(self, facts: ScriptFacts):
        from .bindings import semantic_model

        self.facts = facts
        self.model = semantic_model(facts)
        self._inside: Optional[dict] = None
        self._self_stores: Optional[dict] = None
        loaders = facts.calls_to(DATALOADER)
        self.builds_loaders = bool(loaders)  # else no function returns one
        # Names a DataLoader is assigned to: the only names worth following to one.
        self.loader_names = {assigned_name(facts, site.node, site.ctx) for site in loaders}
        wrappers = facts.calls_to(DDP, *FSDP, DEEPSPEED_INITIALIZE)
        self.builds_wrappers = bool(wrappers)
        self.wrapper_names = {dotted(e) for site in wrappers if isinstance(site.ctx.parent, ast.Assign)
                              for target in site.ctx.parent.targets
                              for e in (target.elts[:1] if isinstance(target, ast.Tuple) else [target])}

    def instance_of(self, name: ast.AST) -> tuple:
        """((name, callee), ) when `name` is bound once to a call of an imported name, else ()."""
        binding = self.model.binding_of(name) if isinstance(name, ast.Name) else None
        value = binding.value if binding is not None and binding.kind == "assignment" else None
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)) or \
                len(self.model.scope_of(name).bindings.get(name.id, ())) != 1:
            return ()
        root = self.model.binding_of(root_name(value.func)) if root_name(value.func) is not None else None
        if root is None or root.kind not in ("import", "from-import"):
            return ()
        return ((name.id, dotted(value.func)),)

    def module_dicts(self) -> ModuleDicts:
        return self.facts.derived("module_dicts", lambda facts: ModuleDicts(facts, self.model))

    # -- values ------------------------------------------------------------------------
    def loader_kind(self, expr: ast.AST) -> tuple[Optional[str], int]:
        """Is this expression a DataLoader, and with which sampler? ("plain", "distributed"...)."""
        if isinstance(expr, (ast.Name, ast.Attribute)):
            if dotted(expr) not in self.loader_names:
                return None, 0
        elif not (isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("DataLoader")):
            return None, 0
        value = self.model.value_of(expr)
        if not isinstance(value, ast.Call) or self.model.resolve(value.func) != DATALOADER:
            return None, 0
        sampler = next((k.value for k in value.keywords if k.arg in ("sampler", "batch_sampler")), None)
        if sampler is None:
            if any(k.arg is None for k in value.keywords) or len(value.args) > 2:
                return None, 0
            return "plain", value.lineno
        sampler = self.model.value_of(sampler)
        if isinstance(sampler, ast.Call) and self.model.resolve(sampler.func) == DISTRIBUTED_SAMPLER:
            return _distributed_kind(sampler), sampler.lineno
        return None, 0

    def sampler_source(self, function: ast.AST, call: ast.Call) -> str:
        """Where the sampler of `DataLoader(...)` inside `function` comes from."""
        params = {a.arg for a in function.args.args + function.args.kwonlyargs}
        dataset = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dataset"), None)
        if self.iterable_dataset(dataset):
            return "iterable"
        if split_per_rank(self.facts, self.model, dataset):
            return "split"
        given = next((k.value for k in call.keywords if k.arg in ("sampler", "batch_sampler")), None)
        if given is None:
            if any(k.arg is None for k in call.keywords) or len(call.args) > 2:
                return "unknown"
            return "none"
        if isinstance(given, ast.Name) and given.id in params:
            return f"param:{given.id}"
        value = self.model.value_of(given)
        if isinstance(value, ast.Call) and self.model.resolve(value.func) == DISTRIBUTED_SAMPLER:
            return _distributed_kind(value)
        return "unknown"

    def returned_loader(self, function: ast.AST, expr: ast.AST) -> Optional[tuple]:
        """(sampler source, row, returned name or "") when `expr` evaluates to a DataLoader(...)."""
        if not isinstance(expr, (ast.Name, ast.Call, ast.Attribute)):
            return None
        value = self.model.value_of(expr)
        if isinstance(value, ast.Call) and self.model.resolve(value.func) == DATALOADER:
            return self.sampler_source(function, value), value.lineno, expr.id if isinstance(expr, ast.Name) else ""
        return None

    def returned_tuple(self, function: ast.AST, returns: list) -> tuple:
        """Per element of the `return a, b` statements, what `returned_loader` says; () unless every
        tuple return has the same shape and facts (and at least one element is a loader)."""
        shapes = set()
        for ret in returns:
            if isinstance(ret.value, ast.Tuple):
                if any(isinstance(e, ast.Starred) for e in ret.value.elts):
                    return ()
                shapes.add(tuple(_without_row(self.returned_loader(function, e)) for e in ret.value.elts))
        if len(shapes) != 1 or not any(next(iter(shapes))):
            return ()
        ret = next(r for r in returns if isinstance(r.value, ast.Tuple))
        return tuple(self.returned_loader(function, e) for e in ret.value.elts)

    def loop_position(self, loop: ast.AST) -> tuple:
        """(span of the loop's header, its epoch counter)."""
        head = loop.test if isinstance(loop, ast.While) else loop.iter
        lines = self.facts.lines
        start = lines.offset_from_ast(loop.lineno, loop.col_offset)
        end = lines.offset_from_ast(head.end_lineno, head.end_col_offset)
        return lines.span(start, end), epoch_counter(loop) or ""

    def iterable_dataset(self, expr: Optional[ast.AST]) -> bool:
        """An iterable dataset (it shards itself, or cannot take a sampler), or an unknown one."""
        if expr is None:
            return True
        value = self.model.value_of(expr)
        if not isinstance(value, ast.Call):
            return False
        name = self.model.resolve(value.func) or dotted(value.func) or ""
        last = name.rsplit(".", 1)[-1]
        if "Iterable" in last:
            return True
        local = self.facts.classes.get(last)
        return local is not None and any("Iterable" in (dotted(b) or "") for b in local.bases)

    # -- functions ---------------------------------------------------------------------
    def inside(self, function: ast.AST) -> tuple[list, list, list, list]:
        """(calls, (for loop, context) pairs, returns with a value, assignments) directly in
        `function`'s body, from the facts' one-walk index (nested functions excluded: their
        context differs)."""
        if self._inside is None:
            index: dict = {}
            get = index.get
            for site in self.facts.calls:
                found = get(id(site.ctx.function))
                if found is None:
                    found = index[id(site.ctx.function)] = ([], [], [], [])
                found[0].append(site)
            for part, entries in ((1, self.facts.of_type(ast.For)), (1, self.facts.of_type(ast.AsyncFor)),
                                  (2, self.facts.of_type(ast.Return)), (3, self.facts.of_type(ast.Assign))):
                for node, ctx in entries:
                    if part == 2 and node.value is None:
                        continue
                    found = get(id(ctx.function))
                    if found is None:
                        found = index[id(ctx.function)] = ([], [], [], [])
                    found[part].append((node, ctx) if part == 1 else node)
            self._inside = index
        return self._inside.get(id(function), _NOTHING_INSIDE)

    def function(self, node: ast.AST) -> FunctionSummary:
        args = node.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        defaults: dict = {}
        for arg, default in zip(reversed(positional), reversed(args.defaults)):
            defaults[arg] = _literal_or_marker(default)
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            if default is not None:
                defaults[arg.arg] = _literal_or_marker(default)
        summary = FunctionSummary(node.name, node.lineno, tuple(positional), tuple(a.arg for a in args.kwonlyargs),
                                  defaults)
        iterated, epoch_iterated, looped_calls = [], [], []
        calls, fors, returns, _ = self.inside(node)
        for site in calls:
            if selects_device(site, self.facts):
                summary.selects_device = True
            if summary.inits_cuda is None and (why := cuda_init_before_fork(site, self.facts)):
                summary.inits_cuda = (why, site.node.lineno)
            if site.attr == "set_epoch":
                summary.calls_set_epoch = True
                reached = set_epoch_params(self.facts, site, summary.params + summary.kwonly)
                summary.set_epoch_params += tuple(p for p in reached if p not in summary.set_epoch_params)
            if site.ctx.loops and site.receiver == "self":
                looped_calls.append((f"self.{site.attr}", *self.loop_position(site.ctx.loops[0])))
            if not site.ctx.guards and site.ctx.function is node and site.calls_project_name(self.facts.imports) \
                    and not _passes_parameters(site.node, node) and not _evaluated_sometimes(self.model, site):
                local = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
                if local not in summary.calls_unguarded:
                    summary.calls_unguarded += (local,)
        for loop, ctx in fors:
            name = dotted(iterated_expression(loop.iter))
            if name:
                iterated.append(name)
                if ctx.loops:
                    epoch_iterated.append((name, *self.loop_position(ctx.loops[0])))
                    if name.count(".") == 1 and not name.startswith("self."):
                        summary.instances += self.instance_of(iterated_expression(loop.iter).value)
        builds_loader = self.builds_loaders and any(site.qualname == DATALOADER for site in calls)
        for ret in returns if builds_loader else ():
            found = self.returned_loader(node, ret.value)
            if found is not None:
                summary.loader_sampler, summary.loader_row = found[0], found[1]
        if builds_loader:
            summary.returned_loaders = self.returned_tuple(node, returns)
        optimizers = [site for site in calls if _is_torch_optimizer(site.qualname)]
        for ret in returns if optimizers else ():
            value = self.model.value_of(ret.value)
            if isinstance(value, ast.Call) and _is_torch_optimizer(self.model.resolve(value.func)):
                summary.returns_optimizer = (self.model.resolve(value.func), self.facts.lines.span_of_node(value),
                                             tuple(k.arg for k in value.keywords if k.arg))
        if self.builds_wrappers and returns and any(site.qualname in _WRAPPER_KINDS for site in calls):
            summary.returns_wrapper = self.returned_wrapper(returns)
        trainers = [site for site in calls if site.qualname in _LIGHTNING]
        for ret in returns if trainers else ():
            value = self.model.value_of(ret.value)
            kind = _LIGHTNING.get(self.model.resolve(value.func)) if isinstance(value, ast.Call) else None
            if kind is not None:
                summary.returns_trainer = (kind, self.facts.lines.span_of_node(value),
                                           _chosen_by_caller(self.model, node, value))
        strategies = [site for site in calls if (site.qualname or "").endswith(".DeepSpeedStrategy")]
        summary.returns_strategy = bool(strategies) and any(
            self.model.value_of(ret.value) in [site.node for site in strategies] for ret in returns if ret.value is not None)
        summary.returns_config = returned_template(returns, self.model, self.facts.lines, _literal_or_marker, NO_VALUE,
                                                   self.facts.derived("config_dict_names", config_dict_names),
                                                   self.module_dicts())
        if self.facts.calls_to(DEEPSPEED_INITIALIZE):
            summary.deepspeed_args = deepspeed_args_param(self.facts, self.model, node, calls)
        if len(returns) == 1 and self.facts.calls_to(*ACCELERATORS):
            summary.returns_plugin = returned_plugin(self.model, self.facts.lines, node, calls, returns)
        summary.iterated, summary.epoch_iterated = tuple(iterated), tuple(epoch_iterated)
        summary.looped_calls = tuple(looped_calls)
        effects = function_effects(self.facts).get(id(node))
        if effects is not None:
            summary.selects_device = summary.selects_device or effects.selects_device
            summary.multiprocess, summary.set_device_row = effects.multiprocess, effects.set_device_row
            summary.sets_num_threads = effects.sets_num_threads
            summary.spawns, summary.starts_group = effects.spawns, effects.starts_group
        return summary

    def returned_wrapper(self, returns: list) -> Optional[tuple]:
        """FunctionSummary.returns_wrapper: every return statement gives one kind of wrapper."""
        found = set()
        row = 0
        for ret in returns:
            value = self.model.value_of(ret.value)
            kind = _WRAPPER_KINDS.get(self.model.resolve(value.func)) if isinstance(value, ast.Call) else None
            if kind is None:
                return None
            found.add(kind)
            row = row or value.lineno
        return (found.pop(), row) if len(found) == 1 else None

    def klass(self, node: ast.ClassDef) -> ClassSummary:
        summary = ClassSummary(node.name, node.lineno, tuple(filter(None, (dotted(b) for b in node.bases))))
        summary.is_dataclass = any("dataclass" in (dotted(d.func if isinstance(d, ast.Call) else d) or "")
                                   for d in node.decorator_list)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                summary.field_defaults[stmt.target.id] = _field_default(stmt.value)
                if machine_field_default(stmt.value, self.facts.callee_name, self.facts.resolve):
                    summary.machine_fields += (stmt.target.id,)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                summary.field_defaults[stmt.targets[0].id] = _literal_or_marker(stmt.value)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                summary.methods[stmt.name] = self.function(stmt)
                fields = _factory_fields(stmt) if summary.is_dataclass else None
                if fields is not None:
                    summary.factory_fields[stmt.name] = fields
                if stmt.name == "__init__":
                    assignments = self.inside(stmt)[3]
                    summary.init_stores = init_stores(stmt, assignments)
                    summary.init_results = init_results(stmt, assignments)
        if summary.init_stores:
            hops = {site.receiver for site in self.facts.method_calls("module") if site.ctx.class_ is node} | {
                site.receiver[:-len(".module")] for site in self.facts.method_calls("forward")
                if site.ctx.class_ is node and (site.receiver or "").endswith(".module")}
            summary.module_hops = tuple(p for p, attr in summary.init_stores.items() if attr in hops)
        summary.attributes = self.attributes(node)
        summary.engine_attributes = _engine_attributes(self.facts, node)
        summary.keeps_rank_share = bool(node.bases) and class_keeps_rank_share(self.facts, node)
        summary.derived = any(_project_base(self.facts, base) for base in node.bases)
        if not summary.derived:
            # ("" entries only tell that a class overrides a loader one of its project bases stores)
            summary.attributes = {a: found for a, found in summary.attributes.items() if found[0]}
        return summary

    def attributes(self, node: ast.ClassDef) -> dict:
        """ClassSummary.attributes: every `self.x` a method of the class stores (any statement),
        with the loader kind when each store is `self.x = <a DataLoader of this module>`."""
        found: dict = {}
        for attr, where in self.self_stores().get(id(node), ()):
            parent = where.parent
            kind, row = None, 0
            if isinstance(parent, ast.Assign) and parent.targets == [attr]:
                kind, row = self.loader_kind(parent.value)
            name = f"self.{attr.attr}"
            seen = found.get(name)
            if seen is None:
                found[name] = (kind or "", row)
            elif seen[0] != (kind or ""):
                found[name] = ("", 0)
        return found

    def self_stores(self) -> dict:
        """id(class) -> the (`self.x` store, context) pairs in its methods, in index order: built once,
        not one pass over every attribute of the module per class."""
        if self._self_stores is None:
            index: dict = {}
            Store, Name = ast.Store, ast.Name
            for attr, where in self.facts.of_type(ast.Attribute):
                if type(attr.ctx) is not Store or where.class_ is None or where.function is None \
                        or not isinstance(attr.value, Name) or attr.value.id != "self":
                    continue
                index.setdefault(id(where.class_), []).append((attr, where))
            self._self_stores = index
        return self._self_stores

    def wrapper_kind(self, expr: ast.AST) -> Optional[str]:
        """"DDP", "FSDP" or "engine" when `expr` holds a wrapper built in this module."""
        if not self.builds_wrappers or not isinstance(expr, (ast.Name, ast.Attribute)) \
                or dotted(expr) not in self.wrapper_names:
            return None
        binding = self.model.binding_of(expr)
        if binding is not None and isinstance(binding.value, ast.Call) and binding.index == (0,) \
                and self.model.resolve(binding.value.func) == DEEPSPEED_INITIALIZE:
            return "engine"
        value = self.model.value_of(expr)
        name = self.model.resolve(value.func) if isinstance(value, ast.Call) else None
        return "DDP" if name == DDP else "FSDP" if name in FSDP else None


_WRAPPER_KINDS = {DDP: "DDP", **{name: "FSDP" for name in FSDP}}
_LIGHTNING = {**{name: "trainer" for name in LIGHTNING_TRAINERS}, **{name: "fabric" for name in FABRIC}}


def _chosen_by_caller(model, function: ast.AST, call: ast.Call) -> tuple:
    """The keywords of `call` whose value reads a parameter of `function` (through a name bound to
    one, too), and "**" when it passes **kwargs: what a caller of the factory may set."""
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    params |= {a.arg for a in (function.args.vararg, function.args.kwarg) if a is not None}
    out = []
    for keyword in call.keywords:
        if keyword.arg is None:
            out.append("**")
            continue
        values = [keyword.value, model.value_of(keyword.value)]
        if any(isinstance(n, ast.Name) and n.id in params for v in values if v is not None for n in ast.walk(v)):
            out.append(keyword.arg)
    return tuple(out)


def _distributed_kind(sampler: ast.Call) -> str:
    """"distributed-shuffle" for a DistributedSampler(...) that shuffles (its default), else "distributed"."""
    shuffle = next((k.value for k in sampler.keywords if k.arg == "shuffle"), None)
    if shuffle is None and len(sampler.args) > 3:
        shuffle = sampler.args[3]  # DistributedSampler(dataset, num_replicas, rank, shuffle, ...)
    return "distributed-shuffle" if shuffle is None or literal(shuffle) is True else "distributed"


def _without_row(found: Optional[tuple]) -> Optional[tuple]:
    return None if found is None else (found[0], found[2])


def init_stores(init: ast.AST, assignments: list) -> dict:
    """`self.loader = loader` (also in tuple form) in `__init__`: parameter -> attribute."""
    params = {a.arg for a in init.args.args + init.args.kwonlyargs}
    stores = {}
    for stmt in assignments:
        for target in stmt.targets:
            pairs = []
            if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) and len(target.elts) == len(stmt.value.elts):
                pairs = list(zip(target.elts, stmt.value.elts))
            else:
                pairs = [(target, stmt.value)]
            for left, right in pairs:
                name = dotted(left)
                if name and name.startswith("self.") and isinstance(right, ast.Name) and right.id in params:
                    stores.setdefault(right.id, name)
    return stores


def _engine_attributes(facts: ScriptFacts, klass: ast.ClassDef) -> tuple:
    """ClassSummary.engine_attributes: `self.x` targets given the first element of deepspeed.initialize(...)
    in a method of the class (unpacked, or `[0]` of it)."""
    found = []
    for site in facts.calls_to(DEEPSPEED_INITIALIZE):
        statement = site.ctx.parent
        if site.ctx.class_ is not klass or not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if statement.value is site.node and isinstance(target, (ast.Tuple, ast.List)) and target.elts:
            target = target.elts[0]
        elif not (isinstance(statement.value, ast.Subscript) and statement.value.value is site.node
                  and literal(statement.value.slice) == 0):
            continue
        name = dotted(target)
        if name and name.startswith("self.") and name.count(".") == 1 and name not in found:
            found.append(name)
    return tuple(found)


def _passes_parameters(call: ast.Call, function: ast.AST) -> bool:
    """Does the call hand on a parameter of `function` (`torch_distributed_zero_first(rank)` in a
    `create_dataloader(..., rank=-1)`)? Then what the callee reaches depends on what the caller passed."""
    args = function.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return any(isinstance(n, ast.Name) and n.id in params
               for a in (*call.args, *(k.value for k in call.keywords)) for n in ast.walk(a))


def _evaluated_sometimes(model, site: CallSite) -> bool:
    """Is the call in a part of its statement that may not run: an arm of `a if c else b`, a later operand
    of `and`/`or`, a comprehension's element?"""
    holder = site.ctx.parent
    if isinstance(holder, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)) \
            and holder.value is site.node:
        return False  # (the whole value of a statement: most calls, no parent map needed)
    child, parent = site.node, model.parent_of(site.node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.IfExp) and child is not parent.test or isinstance(parent, ast.BoolOp) \
                and child is not parent.values[0] or isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                                         ast.GeneratorExp, ast.Lambda)):
            return True
        child, parent = parent, model.parent_of(parent)
    return False


def init_results(init: ast.AST, assignments: list) -> dict:
    """`self.loader = datamodule.train_dataloader()` in `__init__`: "self.loader" -> (parameter, method)."""
    params = {a.arg for a in init.args.args[1:] + init.args.kwonlyargs}
    results = {}
    for stmt in assignments:
        call = stmt.value
        if len(stmt.targets) != 1 or not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        name, owner = dotted(stmt.targets[0]), call.func.value
        if name and name.startswith("self.") and isinstance(owner, ast.Name) and owner.id in params:
            results.setdefault(name, (owner.id, call.func.attr))
    return results


def _freezes_models(facts: ScriptFacts) -> bool:
    """`x.requires_grad_(False)` or `p.requires_grad = False` anywhere in the module."""
    if any(site.node.args and literal(site.node.args[0]) is False or literal(site.keyword("requires_grad")) is False
           for site in facts.method_calls("requires_grad_")):
        return True
    return any(a.name.endswith(".requires_grad") and literal(a.value) is False for a in facts.assignments)


def _factory_fields(method: ast.AST) -> Optional[tuple]:
    """ClassSummary.factory_fields of one method: the keywords of the `cls(...)` each return builds ("*"
    for positional arguments or `**`), for a classmethod whose every return is one; None otherwise."""
    if not any(dotted(d) == "classmethod" for d in method.decorator_list) or not method.args.args:
        return None
    cls = method.args.args[0].arg
    fields: set = set()
    returns = [n for n in ast.walk(method) if isinstance(n, ast.Return)]
    for ret in returns:
        value = ret.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == cls):
            return None
        fields.update(k.arg or "*" for k in value.keywords)
        if value.args:
            fields.add("*")
    return tuple(sorted(fields)) if returns else None


def _visible_device_pins(facts: ScriptFacts, model) -> tuple[bool, set]:
    """(whether the module writes CUDA_VISIBLE_DEVICES at import time, the names of its module-level functions
    whose own body writes it), counting only writes of a value that is not a constant: the rank's own GPU, or
    the one a caller gives (`os.environ["CUDA_VISIBLE_DEVICES"] = gpus[index]`). Import time is outside every
    function and not under the `__main__` guard."""
    from .conditions import mentions_rank, under_main_guard
    from .values import env_writes

    at_import, functions = False, set()
    for access in env_writes(model, "CUDA_VISIBLE_DEVICES"):
        where = facts.context_of(access.node)
        value = access.value if access.kind == "write" else access.default
        if where is None or value is None or not (mentions_rank(facts, value) or not isinstance(value, ast.Constant)):
            continue
        function = where.function
        if function is None:
            at_import = at_import or not under_main_guard(where)
        elif facts.functions.get(getattr(function, "name", "")) is function:
            functions.add(function.name)
    return at_import, functions


def _literal_or_marker(node: ast.AST):
    value = literal(node)
    if value is None and not (isinstance(node, ast.Constant) and node.value is None):
        return NO_VALUE
    return value


def _field_default(node: ast.AST):
    """`x: int = 3`, `x: str = field(default="a")` → the default."""
    if isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "field":
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        return _literal_or_marker(default) if default is not None else NO_VALUE
    return _literal_or_marker(node)


def project_calls(facts: ScriptFacts, imported: set, summariser: "_Summariser") -> tuple[tuple, list, dict]:
    """(the local names of every call of an imported name, the ProjectCalls among them that pass
    a DataLoader: what another module's summary can tell more about, ModuleExports.call_shapes)."""
    called: set = set()
    shapes: dict = {}
    out = []
    loaders = summariser.builds_loaders  # no DataLoader built here: no argument is one
    returned = _returned_names(facts, imported)
    pretrained = _untouched_pretrained(facts, summariser.model) if facts.method_calls("from_pretrained") else {}
    helper_made = _HelperResults(facts, summariser.model, imported)
    for site in facts.calls:
        # (the call's receiver and attribute are already spelled out: no walk of the callee)
        head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
        if head not in imported or (site.receiver is None and not isinstance(site.node.func, ast.Name)):
            continue
        local = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
        called.add(local)
        shapes.setdefault(local, []).append(call_shape(site.node))
        # (what a library's call is given is of no interest to another project module's summary)
        followed = (returned or summariser.builds_wrappers or pretrained or helper_made.any()) \
            and not _library_call(facts, head)
        klass = site.ctx.class_ if site.ctx.class_ in facts.tree.body and not _library_call(facts, head) else None
        if not loaders and not followed and klass is None:
            continue
        given = [(p, None, a) for p, a in enumerate(site.node.args)]
        given = given[:next((p for p, _, a in given if isinstance(a, ast.Starred)), len(given))]
        arguments = []
        for position, keyword, arg in given + [(None, k.arg, k.value) for k in site.node.keywords if k.arg is not None]:
            loader, row = summariser.loader_kind(arg) if loaders else (None, 0)
            source, at = _returned_by(summariser.model, arg, returned) if loader is None and followed else (None, 0)
            wrapper = summariser.wrapper_kind(arg) if loader is None and source is None and followed else None
            fresh = isinstance(arg, ast.Name) and pretrained.get(arg.id) is site.node
            made = helper_made.get(arg.id) if isinstance(arg, ast.Name) else None
            on_self = isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self"
            held = (klass.name, dotted(arg)) if klass is not None and wrapper is None and on_self else None
            arguments.append(ArgumentFact(position, keyword, loader, row or at, source, wrapper, fresh,
                                          made[1] if made is not None and made[0] is site.node else None, held))
        if not any(a.loader or a.returned_by or a.wrapper or a.pretrained or a.made_by or a.self_attribute
                   for a in arguments):
            continue
        node = site.node
        star = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        out.append(ProjectCall(local, node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1,
                               tuple(arguments), tuple(k.arg for k in node.keywords if k.arg), star,
                               getattr(site.ctx.function, "name", None)))
    return tuple(sorted(called)), out, {local: tuple(found) for local, found in shapes.items()}


class _HelperResults:
    """name -> (the one call it is passed to, the callee's local name) for a name bound once to a call of an
    imported project function (`teacher = load_teacher(path)`) whose every other use is a move, `.eval()` or
    a field read: if the callee returns a from_pretrained model, this module never trains or freezes it.
    Looked at only for the names handed to project calls (the uses of each are walked on demand)."""

    def __init__(self, facts: ScriptFacts, model, imported):
        self.facts, self.model = facts, model
        self.statements = {}  # name -> [(the call, its statement)]
        for value, statement in _assignments_of_calls(facts, imported) if imported else ():
            self.statements.setdefault(statement.targets[0].id, []).append((value, statement))
        self.done: dict = {}

    def any(self) -> bool:
        return bool(self.statements)

    def get(self, name: str):
        if name not in self.statements:
            return None
        if name not in self.done:
            self.done[name] = self._untouched(name)
        return self.done[name]

    def _untouched(self, name: str):
        model = self.model
        if len(self.statements[name]) != 1:
            return None
        value, statement = self.statements[name][0]
        bindings = model._bindings_of_statement(statement)
        if len(bindings) != 1 or len(model.own_scope(bindings[0].scope.node).bindings.get(bindings[0].name, ())) != 1:
            return None
        passed = _handed_once(model, bindings[0], returns=False)
        return (passed, dotted(value.func)) if passed is not None else None


def _assignments_of_calls(facts: ScriptFacts, imported) -> list:
    """(the call, its statement) of each `name = f(...)` where f is a name imported from the project."""
    out = []
    for site in facts.calls:
        statement = site.ctx.parent
        head = (site.receiver or site.attr or "").split(".", 1)[0]
        if head in imported and not _library_call(facts, head) and isinstance(statement, ast.Assign) \
                and statement.value is site.node \
                and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) and dotted(site.node.func):
            out.append((site.node, statement))
    return out


def _field_read(model, node) -> bool:
    """`model.config` (a plain attribute read, not a method called, stored into or handed to a call)."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)) or node.attr in _TRAINS_OR_FREEZES:
        return False
    parent = model.parent_of(node)
    return not (isinstance(parent, ast.Call) and parent.func is node)


_TRAINS_OR_FREEZES = ("train", "parameters", "named_parameters", "requires_grad_", "state_dict", "load_state_dict",
                      "requires_grad")


def returned_pretrained(facts: ScriptFacts, model) -> set:
    """Names of module-level functions that return a name bound once to a transformers/diffusers
    `from_pretrained` model they only move or put in eval mode (`load_teacher`): a caller that never
    trains or freezes it holds an untouched pretrained model."""
    found: dict = {}
    _untouched_pretrained(facts, model, found)
    return {name for name, function in found.items() if facts.functions.get(name) is function}


def _untouched_pretrained(facts: ScriptFacts, model, returned: Optional[dict] = None) -> dict:
    """name -> the one call it is passed to, for each name bound once to `X.from_pretrained(...)` of transformers
    or diffusers (through `.to(device)` and the like) whose every other use is a move (`.to`, `.cuda`, `.eval`):
    a model this module never trains or freezes, handed to that call alone."""
    out = {}
    for site in facts.method_calls("from_pretrained"):
        if (model.resolve(site.node.func) or "").split(".")[0] not in ("transformers", "diffusers"):
            continue
        outer = site.node
        while isinstance(model.parent_of(outer), ast.Attribute) and model.parent_of(outer).attr in ("to", "cuda", "eval") \
                and isinstance(model.parent_of(model.parent_of(outer)), ast.Call):
            outer = model.parent_of(model.parent_of(outer))
        statement = model.parent_of(outer)
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            continue
        bindings = model._bindings_of_statement(statement)
        if len(bindings) != 1 or len(model.own_scope(bindings[0].scope.node).bindings.get(bindings[0].name, ())) != 1:
            continue
        passed = _handed_once(model, bindings[0], returns=returned is not None)
        if isinstance(passed, ast.Return):
            function = bindings[0].scope.node
            returned[getattr(function, "name", "")] = function
        elif passed is not None:
            out[bindings[0].name] = passed
    return out


def _handed_once(model, binding, returns: bool) -> Optional[ast.AST]:
    """The one call (or, with `returns`, the `return`) a model name is handed to when every other use is a move
    (`.to`, `.cuda`, `.eval()`) or a field read (`teacher.config`): nothing here trains or freezes it. None when
    it is used any other way or handed on more than once."""
    passed = []
    for use in model.uses_of(binding):
        parent = model.parent_of(use)
        if isinstance(parent, ast.Attribute) and parent.attr in ("to", "cuda", "eval") or _field_read(model, parent):
            continue
        if returns and isinstance(parent, ast.Return):
            passed.append(parent)
        elif isinstance(parent, ast.Call) and use in parent.args or isinstance(parent, ast.keyword):
            passed.append(parent if isinstance(parent, ast.Call) else model.parent_of(parent))
        else:
            return None  # read another way: trained, frozen or handed on, for all this module shows
    return passed[0] if len(passed) == 1 else None


def call_shape(call: ast.Call) -> tuple[int, tuple, bool]:
    """(the positional arguments before any `*args`, the keywords given, whether `*args` or
    `**kwargs` is given: then any parameter may be bound)."""
    given = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
    star = given < len(call.args) or any(k.arg is None for k in call.keywords)
    return given, tuple(k.arg for k in call.keywords if k.arg is not None), star




def _returned_names(facts: ScriptFacts, imported: set) -> dict:
    """id of each `x = f(...)` / `a, b = f(...)` call of an imported project name -> its local name,
    and each name those statements bind -> True (a cheap first filter)."""
    out = {}
    for site in facts.calls:
        parent = site.ctx.parent
        if not isinstance(parent, ast.Assign) or parent.value is not site.node:
            continue
        head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
        if head not in imported or (site.receiver is None and not isinstance(site.node.func, ast.Name)):
            continue
        if _library_call(facts, head) or site.attr[:1].isupper():
            continue  # (a class's call returns an instance of it, never a DataLoader)
        out[id(site.node)] = dotted(site.node.func)
        for target in parent.targets:
            out.update((e.id, True) for e in (target.elts if isinstance(target, ast.Tuple) else [target])
                       if isinstance(e, ast.Name))
    return out


def _project_base(facts: ScriptFacts, base: ast.expr) -> bool:
    """A base class that may be the project's: not `object`, nor a name from a library."""
    name = dotted(base)
    if name is None:
        return True
    head = name.split(".", 1)[0]
    return name != "object" and not (head in facts.imports.names and _library_call(facts, head))


def _library_call(facts: ScriptFacts, head: str) -> bool:
    """The imported name `head` comes from a library (LIBRARIES, the standard library), not the project."""
    return head not in facts.imports.relative and is_library(facts.imports.names.get(head, ""))


def instance_method(model, func: ast.AST) -> Optional[str]:
    """`Cls().method` (what ProgramIndex.callee resolves) for a call `x.method(...)` whose receiver
    holds, through its bindings (`x = Cls(...)`, `self.x = pkg.Cls(...)` in `__init__`), an
    instance of a class imported from another module; None otherwise (a library's class, a
    parameter, a name bound in several places)."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, (ast.Name, ast.Attribute)):
        return None
    value = model.value_of(func.value)
    if not isinstance(value, ast.Call) or value is func.value:
        return None
    root = root_name(value.func)
    binding = model.binding_of(root) if root is not None else None
    klass = dotted(value.func)
    if binding is None or binding.kind not in ("import", "from-import") or klass is None:
        return None
    if is_library(model.resolve(value.func) or binding.name):
        return None
    return f"{klass}().{func.attr}"


def project_imports(facts: ScriptFacts) -> frozenset:
    """The local names of the module's imports that may be the project's (relative, or not a library's)."""
    return facts.derived("project_imports", lambda f: frozenset(
        {local for local, name in f.imports.names.items() if not is_library(name)} | f.imports.relative))


def call_result_names(facts: ScriptFacts) -> frozenset:
    """`_call_results`, built once per module."""
    return facts.derived("call_results", _call_results)


def _call_results(facts: ScriptFacts) -> frozenset:
    """The names the module binds to the result of a call of a project import (`rank = init()`, `a, b =
    utils.setup()`, `rank = int(get_rank())`, `self.run = Trainer(cfg)`), or to one of those names
    (`device = rank`): the only names that may hold what a project function returns (a cheap first
    filter for the walks that follow a name to such a call)."""
    imported = project_imports(facts)
    names: set = set()
    aliases = []
    for assignment in facts.assignments:
        value = assignment.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "int" and value.args:
            value = value.args[0]
        if isinstance(value, ast.Subscript):  # `init()[0]`
            value = value.value
        if isinstance(value, (ast.Name, ast.Attribute)):
            aliases.append((assignment.name, dotted(value)))
        elif isinstance(value, ast.Call):
            func = value.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Name) and func.id in imported:
                names.add(assignment.name)
    for _ in range(2 if names else 0):  # (a name bound to one of those, twice over)
        names.update(target for target, source in aliases if source in names)
    return frozenset(names)


def instance_calls(facts: ScriptFacts, model) -> tuple:
    """ModuleExports.instance_calls: `Cls().method` (instance_method) for each method call on an
    instance of a class imported from a project module, `Cls(...).method()` included."""
    results = call_result_names(facts)
    found = set()
    for site in facts.calls:
        func = site.node.func
        if site.receiver is not None and site.receiver in results:
            callee = instance_method(model, func)
        elif site.receiver is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
                and (root := root_name(func.value.func)) is not None and root.id in project_imports(facts):
            callee = f"{dotted(func.value.func)}().{func.attr}" if dotted(func.value.func) else None
        else:
            continue
        if callee is not None:
            found.add(callee)
    return tuple(sorted(found))


def _returned_by(model, expr: ast.AST, returned: dict) -> tuple[Optional[tuple], int]:
    """((callee, unpack index or None), the call's row) when the name `expr` holds what a project
    call returned, else (None, 0)."""
    if not isinstance(expr, ast.Name) or expr.id not in returned:
        return None, 0
    binding = model.binding_of(expr)
    if binding is None or binding.kind != "assignment" or id(binding.value) not in returned:
        return None, 0
    if binding.index is not None and len(binding.index) != 1:
        return None, 0
    return (returned[id(binding.value)], binding.index[0] if binding.index else None), binding.value.lineno


@dataclass
class ModuleExports:
    """The program-level view of one module (stored on its summary as `summary.module`)."""

    imports: list = field(default_factory=list)
    main_guard: bool = False
    # its import-time code sets CUDA_VISIBLE_DEVICES to a value that depends on the process (the local
    # rank, the environment): a script importing it sees its own GPU as cuda:0 (DSL101)
    pins_visible_devices: bool = False
    # it freezes some model: `m.requires_grad_(False)`, or `p.requires_grad = False` (a caller of a function
    # whose model parameter runs in eval mode may have frozen what it passes: DSL402)
    freezes_models: bool = False
    functions: dict = field(default_factory=dict)  # top-level name -> FunctionSummary
    classes: dict = field(default_factory=dict)  # top-level name -> ClassSummary
    calls: list = field(default_factory=list)  # ProjectCall, ... with a fact about an argument (a loader)
    called: tuple = ()  # the local names of every call of an imported name (`utils.load`, `make_loader`)
    selects_device: bool = False  # at import time or in any function
    calls_set_epoch: bool = False  # anywhere in the module
    # Model parallelism the module shows ("tensor/pipeline groups", "device mesh", ...): the ranks
    # of one model-parallel group must read the same batch, so the data-parallel size is not the world.
    model_parallel: Optional[str] = None
    config_constants: dict = field(default_factory=dict)  # NAME -> DictTemplate of a DeepSpeed config dict (config_dicts.py)
    # NAME -> str or int of a module-level `NAME = "cuda:0"` bound once and never rebound (`value_constants`)
    value_constants: dict = field(default_factory=dict)
    multiprocess: Optional[tuple] = None  # (what, Span) of the module's first evidence of several processes
    # (row, what) of the first CUDA context its import creates (module-level code under no `if` but a
    # CUDA-availability test, outside `__main__`): importing it touches the current GPU
    import_time_cuda: Optional[tuple] = None
    # local name of an imported callable -> (Span of its first call that always runs, or of its first
    # call; whether every call may be skipped: under an `if`, after a guarded return)
    called_at: dict = field(default_factory=dict)
    # the local names of `called` with a call where autograd is on (not under torch.no_grad() and the like)
    called_with_grad: tuple = ()
    # NAME -> (function name, ...) for a module-level dict/list/tuple of functions (`LOADERS =
    # {"a": build_a, "b": build_b}`) that the module never changes: `LOADERS[key](...)` calls one of them
    function_tables: dict = field(default_factory=dict)
    # `Cls().method` for each method called on an instance of a project class (`t = Trainer(cfg); t.setup()`)
    instance_calls: tuple = ()
    # local name called -> ((positional arguments given, keywords given, *args/**kwargs given), ...) per
    # call: which parameters the callers leave at their defaults (program_callers.calls_leaving_default)
    call_shapes: dict = field(default_factory=dict)
    # NAME -> parts of a module-level keyword dict (`STRATEGY_KW = dict(stage=3, ...)`) bound once and never
    # changed: another module's `DeepSpeedStrategy(**STRATEGY_KW)` reads it (keyword_splats.keyword_dicts)
    keyword_dicts: dict = field(default_factory=dict)
    # it takes gradients itself (`torch.autograd.grad`, torch.func's grad/jacrev, ...): a model whose forward
    # computes forces or derivatives needs autograd on in evaluation too
    takes_gradients: bool = False
    # it may start processes other than by torch.multiprocessing.spawn (multiprocessing, subprocess, ray,
    # submitit, torch's elastic launcher, accelerate's notebook_launcher): a `python script.py` launch of its
    # program may still run several ranks
    starts_processes: bool = False


def summarise_module(facts: ScriptFacts) -> ModuleExports:
    """Build the module's exports from its facts (one pass over the top-level statements)."""
    tree = facts.tree
    summariser = _Summariser(facts)
    exports = ModuleExports(imports=imports_of(facts), main_guard=has_main_guard(tree))
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            exports.functions[stmt.name] = summariser.function(stmt)
        elif isinstance(stmt, ast.ClassDef):
            exports.classes[stmt.name] = summariser.klass(stmt)
    imported = {ref.local for ref in exports.imports if ref.local} | {
        local for ref in exports.imports for _, local in ref.names}
    exports.called, exports.calls, exports.call_shapes = project_calls(facts, imported, summariser)
    exports.called_at = _called_at(facts, imported, set(exports.called))
    if exports.called:
        exports.instance_calls = instance_calls(facts, summariser.model)
    exports.called_with_grad = _called_with_grad(facts, imported, set(exports.called))
    exports.import_time_cuda = import_time_cuda(facts)
    exports.selects_device = any(f.selects_device for f in exports.functions.values()) or any(
        m.selects_device for c in exports.classes.values() for m in c.methods.values()) or any(
        selects_device(site, facts) for site in facts.calls if site.ctx.function is None)
    for key, (found, row, flags) in collective_functions(facts).items():
        owner, _, method = key.partition(".")
        target = exports.functions.get(key) if not method else getattr(exports.classes.get(owner), "methods", {}).get(method)
        if target is not None:
            target.collective = (found.label, found.why, found.kind, row, flags)
    for key, params in engine_param_saves(facts).items():
        if key in exports.functions:
            exports.functions[key].gated_engine_saves = params
    for key, bypass in engine_bypasses(facts).items():
        if key in exports.functions:
            exports.functions[key].engine_bypass = bypass.summary()
    for read in module_reads(facts):
        target = exports.functions.get(read.function) if read.param else None
        if target is not None:
            target.unsharded_reads += ((read.param, read.position, read.what, facts.lines.span_of_node(read.node)),)
    if any(word in facts.text for word in _RANK_WORD_LIST):  # (`in` scans ~4x faster than the regex)
        lines = facts.lines
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and isinstance(stmt.body[-1], ast.Return) and _RANK_WORDS.search(
                    facts.text, lines.offset_from_ast(stmt.lineno, 0), lines.offset_from_ast(stmt.end_lineno, stmt.end_col_offset)):
                exports.functions[stmt.name].returns_rank = returned_ranks(summariser.model, stmt,
                                                                           summariser.inside(stmt)[2])
            elif isinstance(stmt, ast.ClassDef) and stmt.name in exports.classes:  # `DistEnv.from_env()`
                for method in stmt.body:
                    summary = exports.classes[stmt.name].methods.get(getattr(method, "name", ""))
                    if summary is not None and isinstance(method, ast.FunctionDef) and _RANK_WORDS.search(
                            facts.text, lines.offset_from_ast(method.lineno, 0),
                            lines.offset_from_ast(method.end_lineno, method.end_col_offset)):
                        summary.returns_rank = returned_field_ranks(summariser.model, method,
                                                                   summariser.inside(method)[2])
    if any(word in facts.text for word in _MADE_UP_WORDS):
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and facts.functions.get(stmt.name) is stmt and isinstance(
                    stmt.body[-1], ast.Return) and returns_made_up(
                    summariser.model, stmt, facts.functions):
                exports.functions[stmt.name].returns_made_up = True
    grad_off = grad_off_defs(facts)
    for stmt in tree.body if grad_off else ():
        kind = grad_off.get(id(stmt)) if isinstance(stmt, ast.FunctionDef) else None
        summary = exports.functions.get(stmt.name) if kind else None
        if summary is not None and facts.functions.get(stmt.name) is stmt:
            summary.grad_off_decorator, summary.grad_off_context = kind == "decorator", kind == "context"
    exports.calls_set_epoch = bool(facts.method_calls("set_epoch"))
    exports.takes_gradients = "grad" in facts.text and bool(facts.calls_to(*GRADIENT_CALLS))
    exports.starts_processes = any(word in facts.text for word in _PROCESS_WORDS) and _starts_processes(facts)
    exports.model_parallel = model_parallelism(facts)
    exports.config_constants = module_constants(facts, summariser.model, _literal_or_marker, NO_VALUE,
                                                summariser.module_dicts())
    exports.function_tables = function_tables(facts, set(exports.functions) | imported)
    exports.value_constants = value_constants(facts, summariser.model)
    exports.keyword_dicts = keyword_dicts(facts, summariser.model)
    at_import, pinning = _visible_device_pins(facts, summariser.model) if "CUDA_VISIBLE_DEVICES" in facts.text \
        else (False, ())
    exports.pins_visible_devices = at_import
    for name in returned_pretrained(facts, summariser.model) if facts.method_calls("from_pretrained") else ():
        if name in exports.functions:
            exports.functions[name].returns_pretrained = True
    parser = parser_function(facts) if "parse_args" in facts.text else None
    if parser is not None and parser[0] in exports.functions:
        exports.functions[parser[0]].parsed_options = parser[1]
    for name in pinning:
        if name in exports.functions:
            exports.functions[name].pins_visible_devices = True
    exports.freezes_models = "requires_grad" in facts.text and _freezes_models(facts)
    evidence = distributed_facts(facts).multiprocess_evidence
    if evidence:
        first = min(evidence, key=lambda e: (e.node.lineno, e.node.col_offset))
        exports.multiprocess = (first.what, facts.lines.span_of_node(first.node))
    _keep_what_matters(exports)
    return exports


# What a function returning made-up inputs calls (program_effects.returns_made_up): a module with none is not looked at.
_MADE_UP_WORDS = ("rand", "zeros", "ones", "empty", "full", "arange", "linspace")


# What a function returning a rank reads (RANK, LOCAL_RANK, get_rank(), SLURM_PROCID, process_index...):
# a function whose text has none of these words returns no rank (one that only calls a helper
# returning it is left out), and is not looked at.
_RANK_WORD_LIST = ("RANK", "PROCID", "LOCALID", "get_rank", "local_rank", "global_rank", "process_index", ".rank(")
_RANK_WORDS = re.compile("|".join(map(re.escape, _RANK_WORD_LIST)))
_NEUTRAL_RANKS = (0, -1)  # what a helper returns when not distributed (`if not dist.is_initialized(): return 0`)


def returned_ranks(model, function: ast.FunctionDef, returns: list) -> tuple:
    """FunctionSummary.returns_rank: the rank (values.is_rank_expression: "global" or "local") that
    every return of `function` gives (a not-distributed 0 / -1 aside), as a whole or per element of
    the tuples it returns; () for a generator, a body that may end without a return, or no rank.
    `returns`: its own `return <value>` statements."""
    if not function.body or not isinstance(function.body[-1], ast.Return):
        return ()
    shapes = []  # per return: (tuple size or None, [its elements or the whole value])
    for ret in returns:
        if _neutral_rank(ret.value):
            continue
        followed = model.value_of(ret.value)
        if isinstance(followed, ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in followed.elts):
                return ()
            shapes.append((len(followed.elts), followed.elts))
        else:
            shapes.append((None, [ret.value]))
    if not shapes or len({size for size, _ in shapes}) != 1:
        return ()
    size = shapes[0][0]
    out = []
    for position in range(size if size is not None else 1):
        kinds = {is_rank_expression(model, elts[position]) for _, elts in shapes
                 if not _neutral_rank(elts[position])}
        if len(kinds) == 1 and (kind := kinds.pop()) in ("global", "local"):
            out.append((None if size is None else position, kind))
    return tuple(out) if out and not _bare_return_or_yield(function) else ()


def returned_field_ranks(model, method: ast.FunctionDef, returns: list) -> tuple:
    """FunctionSummary.returns_rank of a classmethod whose every return builds its dataclass with the
    rank as a field (`return cls(rank=int(os.environ["RANK"]), ...)`): (field, kind) pairs.
    `returns`: its own `return <value>` statements."""
    from .values import built_field

    if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in method.decorator_list) or not (
            method.body and isinstance(method.body[-1], ast.Return)) or _bare_return_or_yield(method):
        return ()
    args = method.args.posonlyargs + method.args.args
    own = args[0].arg if args else None
    calls = [model.value_of(ret.value) for ret in returns]
    if not calls or not all(isinstance(c, ast.Call) for c in calls):
        return ()
    out = []
    for field_name in {kw.arg for kw in calls[0].keywords if kw.arg}:
        kinds = {is_rank_expression(model, value) if value is not None else None
                 for value in (built_field(model, c, field_name, own) for c in calls)}
        if len(kinds) == 1 and (kind := kinds.pop()) in ("global", "local"):
            out.append((field_name, kind))
    return tuple(sorted(out))


def _bare_return_or_yield(function: ast.AST) -> bool:
    """A `return` without a value or a `yield` among the function's own statements (not a nested def's)."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)) or (isinstance(node, ast.Return) and node.value is None):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _neutral_rank(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value in _NEUTRAL_RANKS


_MAX_CONSTANT = 200  # characters of a string constant worth keeping (a device, a URL, a path)


def value_constants(facts: ScriptFacts, model) -> dict:
    """NAME -> the str or int of each module-level `NAME = <literal>` (or `NAME: str = ...`) that is
    the name's only binding in the module: not rebound, not assigned under `global`, not in a
    branch. Another module's `from config import DEVICE` reads it (`ProgramIndex.exported_constant`)."""
    out: dict = {}
    candidates = []
    for stmt in facts.tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            candidates.append((stmt.targets[0].id, stmt.value))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            candidates.append((stmt.target.id, stmt.value))
    candidates = [(name, value) for name, value in candidates if isinstance(value, ast.Constant) and (
        isinstance(value.value, int) and not isinstance(value.value, bool)
        or isinstance(value.value, str) and len(value.value) <= _MAX_CONSTANT)]
    if not candidates:
        return out
    declared = {name for node, _ in facts.of_type(ast.Global) for name in node.names}
    scope = model.own_scope(facts.tree)
    for name, value in candidates:
        bindings = scope.bindings.get(name, [])
        if name not in declared and len(bindings) == 1 and bindings[0].value is value:
            out[name] = value.value
    return out




def function_tables(facts: ScriptFacts, callables: set) -> dict:
    """ModuleExports.function_tables: a top-level `NAME = {...}` (or list, tuple) whose every value is
    the name of a def of this module or of an imported name, bound once, with no store into it or
    method call on it anywhere in the module (`NAME["c"] = f`, `NAME.update(...)`: it may hold more)."""
    candidates: dict = {}
    for stmt in facts.tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            value = stmt.value
            items = value.values if isinstance(value, ast.Dict) and None not in value.keys else \
                value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
            names = [i.id for i in items or () if isinstance(i, ast.Name) and i.id in callables]
            fine = bool(items) and len(names) == len(items) and target.id not in candidates
            candidates[target.id] = tuple(names) if fine else None
    tables = {name: found for name, found in candidates.items() if found}
    if not tables:
        return {}
    for stmt in facts.tree.body:  # (a second top-level binding: `NAME = ...` or `def NAME`, `import NAME`)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            tables.pop(stmt.name, None)
    for node, _ in facts.of_type(ast.Name):
        if node.id in tables and not isinstance(node.ctx, ast.Load) and _bound_twice(facts, node):
            tables.pop(node.id, None)
    for node, _ in facts.of_type(ast.Subscript):
        if isinstance(node.value, ast.Name) and not isinstance(node.ctx, ast.Load):
            tables.pop(node.value.id, None)
    for site in facts.calls:
        if site.receiver in tables:
            tables.pop(site.receiver, None)
    return tables


def _bound_twice(facts: ScriptFacts, node: ast.Name) -> bool:
    """A store of the table's name other than its one top-level assignment."""
    statement = next((s for s in facts.tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                      and any(t is node for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))), None)
    return statement is None


def _called_at(facts: ScriptFacts, imported: set, called: set) -> dict:
    """ModuleExports.called_at, for the project names a module calls."""
    from .program_effects import may_not_run

    out: dict = {}
    for site, local in _project_call_sites(facts, imported, called):
        found = out.get(local)
        skipped = may_not_run(facts, site)
        if found is None or (found[1] and not skipped):
            out[local] = (facts.lines.span_of_node(site.node), skipped)
    return out


def _called_with_grad(facts: ScriptFacts, imported: set, called: set) -> tuple:
    """ModuleExports.called_with_grad: the called project names of which some call records autograd
    (not inside a `no_grad`/`inference_mode` block or decorated def: the callers' own callers are not
    followed, which would cost a walk per call)."""
    from .conditions import grad_disabled_at

    if not any(word in facts.text for word in _GRAD_OFF_WORDS):
        return tuple(sorted(called))
    return tuple(sorted({local for site, local in _project_call_sites(facts, imported, called)
                         if not grad_disabled_at(facts, site.ctx)}))


def _project_call_sites(facts: ScriptFacts, imported: set, called: set):
    """(site, local name) of each call of a project name the module imports and calls (`called`)."""
    for site in facts.calls:
        head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
        if head not in imported or _library_call(facts, head):
            continue  # (a library's function never reaches the program's summaries)
        local = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
        if local in called:
            yield site, local


_GRAD_OFF_WORDS = ("no_grad", "inference_mode", "set_grad_enabled")


def import_time_cuda(facts: ScriptFacts) -> Optional[tuple]:
    """(row, what) of the first call at import time that creates a CUDA context (see ModuleExports)."""
    found = [(site.node.lineno, site.node.col_offset, why) for site in facts.calls if site.ctx.at_import_time
             and all(_holds_with_a_gpu(g.test, branch) for g, branch in site.ctx.guards)
             and (why := cuda_touch(site, facts))]
    return min(found)[::2] if found else None


def _holds_with_a_gpu(test: ast.AST, branch: bool) -> bool:
    """Is the `branch` of `if test` taken whenever a GPU is there (`torch.cuda.is_available()`, an
    `and` of such tests)? Any other condition (`"PYTEST_CURRENT_TEST" in os.environ and ...`, a flag)
    may keep the import-time code from running: unknown, so not counted."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _holds_with_a_gpu(test.operand, not branch)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if branch else ast.Or):
        return all(_holds_with_a_gpu(value, branch) for value in test.values)
    return branch and isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) \
        and test.func.attr == "is_available" and not test.args


def _says_something(function: FunctionSummary) -> bool:
    return bool(function.selects_device or function.inits_cuda or function.pins_visible_devices or function.parsed_options
                or function.returns_pretrained
                or function.loader_sampler or function.returned_loaders
                or function.epoch_iterated or function.iterated or function.looped_calls or function.calls_set_epoch
                or function.collective or function.calls_unguarded or function.unsharded_reads
                or function.gated_engine_saves or function.engine_bypass
                or function.returns_optimizer or function.returns_wrapper or function.returns_config or function.multiprocess
                or function.set_device_row or function.sets_num_threads or function.spawns
                or function.starts_group or function.returns_trainer or function.deepspeed_args
                or function.returns_plugin or function.returns_rank or function.returns_strategy
                or function.returns_made_up or function.grad_off_decorator or function.grad_off_context)


def _is_torch_optimizer(qualname: Optional[str]) -> bool:
    """`torch.optim.AdamW` and the like (not torch.optim.lr_scheduler.*)."""
    return bool(qualname) and qualname.startswith("torch.optim.") and qualname.count(".") == 2


def _keep_what_matters(exports: ModuleExports) -> None:
    """Drop the summaries that state nothing a rule asks (most functions): every worker pickles
    its summaries back and the cache stores them."""
    exports.functions = {name: f for name, f in exports.functions.items() if _says_something(f)}
    for klass in exports.classes.values():
        # (every class stays, its methods dropped when none says anything: a class left out would break the
        # lineage through it, `class Trainer(StepMixin, Base)` with a mixin a rule asks about)
        if not any(_says_something(m) for m in klass.methods.values()):
            # (an `__init__` that stores its parameters says which a caller's arguments land in)
            kept = {"__init__": klass.methods["__init__"]} if klass.init_stores and "__init__" in klass.methods else {}
            klass.dropped_methods = tuple(m for m in klass.methods if m not in kept)
            klass.methods = kept


# Megatron-style parallel state (`mpu.get_tensor_model_parallel_rank()`, `parallel_state.initialize_model_parallel`),
# DeepSpeed pipelines, torch pipelining: what shows that ranks are split into model-parallel groups.
_MODEL_PARALLEL_ATTRS = re.compile(r"(tensor|pipeline|model|sequence|context|expert)_(model_)?parallel|"
                                   r"initialize_model_parallel|get_data_parallel_(rank|world_size|group)")


@lru_cache(maxsize=8192)
def _parallel_attr(attr: str) -> bool:
    """Does a called name split ranks into model-parallel groups (`_MODEL_PARALLEL_ATTRS`)? Memoised:
    every call site of every module asks."""
    return _MODEL_PARALLEL_ATTRS.search(attr) is not None


_MODEL_PARALLEL_CALLS = ("deepspeed.pipe.PipelineModule", "torch.distributed.pipelining.pipeline",
                         "torch.distributed.tensor.parallel.parallelize_module", "torch.distributed.new_subgroups")


def model_parallelism(facts: ScriptFacts) -> Optional[str]:
    """How the module splits ranks into model-parallel groups, or None when it shows no such split."""
    for site in facts.calls:
        q = site.qualname or ""
        if q in _MODEL_PARALLEL_CALLS:
            return q.rsplit(".", 1)[-1]
        if q == "torch.distributed.device_mesh.init_device_mesh":
            shape = literal(site.argument(1, "mesh_shape"))
            if isinstance(shape, (tuple, list)) and len(shape) > 1:
                return "a multi-dimensional device mesh"
        if q == "torch.distributed.new_group" and (site.node.args or site.keyword("ranks") is not None):
            return "torch.distributed.new_group(ranks)"
        if site.attr and _parallel_attr(site.attr):
            return f"{site.attr}()"
    return None
