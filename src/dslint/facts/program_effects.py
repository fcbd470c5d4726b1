"""What a function does that the program around it asks about: it starts or joins a world of several
processes, it spawns processes itself (`mp.spawn`), it starts the process group, it selects the
process's GPU, it sets torch's thread count.

Computed in the per-file phase for every function and method of a module, and carried through the
module's own calls (`main()` calling `_init_dist()` of the same module does what `_init_dist()`
does; a method calling `self._setup()` what `_setup` does; `Trainer(...)` what `Trainer.__init__`
does). Calls into other modules are the program's to join (`program.py`, through the imports).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..sources.names import dotted, is_library
from .cuda import selects_device, set_device_sites
from .distributed import evidence_by_function
from .script import CallSite, ScriptFacts, literal

SET_NUM_THREADS = "torch.set_num_threads"
INIT_PROCESS_GROUP = "torch.distributed.init_process_group"
SPAWNS = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes")


@dataclass
class Effects:
    multiprocess: Optional[tuple] = None  # (what, Span): evidence that it runs in several processes
    set_device_row: int = 0  # row of a set_device(<not a literal>) it reaches; 0: none
    selects_device: bool = False  # any call that selects the GPU (set_device, a framework that does)
    sets_num_threads: bool = False
    # (what, Span, nprocs or None, conditional) of an mp.spawn/start_processes it reaches; conditional
    # when the spawn (or a call on the way to it) may not run: under an `if`, or after a guarded return
    spawns: Optional[tuple] = None
    # (backend, Span) of an init_process_group it reaches that gives no device_id (nor **kwargs) and is
    # not a world of one: backend "nccl", "default" (none given: NCCL for CUDA tensors) or "other"
    starts_group: Optional[tuple] = None

    def _state(self) -> tuple:
        return (self.multiprocess, self.set_device_row, self.selects_device, self.sets_num_threads, self.spawns,
                self.starts_group)

    def merge(self, other: "Effects", conditional: bool = False) -> bool:
        """Take what a callee does (`conditional`: the call may not run); True when something changed."""
        before = self._state()
        self.multiprocess = self.multiprocess or other.multiprocess
        self.set_device_row = self.set_device_row or other.set_device_row
        self.selects_device = self.selects_device or other.selects_device
        self.sets_num_threads = self.sets_num_threads or other.sets_num_threads
        if self.spawns is None and other.spawns is not None:
            self.spawns = other.spawns[:3] + (other.spawns[3] or conditional,)
        self.starts_group = self.starts_group or other.starts_group
        return before != self._state()


def local_callee(facts: ScriptFacts, site: CallSite) -> Optional[ast.AST]:
    """The function of this module a call runs: `helper()`, `self.method()` inside the class,
    `Klass(...)` (its `__init__`); None for anything else."""
    func = site.node.func
    if isinstance(func, ast.Name):
        name = func.id
        if name in facts.functions:
            return facts.functions[name]
        if name in facts.classes:
            return facts.functions.get(f"{name}.__init__")
        return None
    if site.receiver == "self" and site.ctx.class_ is not None:
        return facts.functions.get(f"{site.ctx.class_.name}.{site.attr}")
    return None


def function_effects(facts: ScriptFacts) -> dict:
    """id(function node) -> Effects, for every function of the module that does one of these things
    (directly or through the module's own functions); built once per module."""
    return facts.derived("function_effects", _build)


def _build(facts: ScriptFacts) -> dict:
    effects: dict = {}

    def of(function) -> Effects:
        found = effects.get(id(function))
        if found is None:
            found = effects[id(function)] = Effects()
        return found

    set_device = {id(site.node) for site in set_device_sites(facts)}
    callees: dict = {}
    for site in facts.calls:
        function = site.ctx.function
        if function is None or isinstance(function, ast.Lambda):
            continue
        if selects_device(site, facts):
            of(function).selects_device = True
            if id(site.node) in set_device and _not_a_literal(site.argument(0, "device")):
                of(function).set_device_row = of(function).set_device_row or site.node.lineno
        if site.qualname == SET_NUM_THREADS:
            of(function).sets_num_threads = True
        if site.qualname in SPAWNS and of(function).spawns is None:
            nprocs = literal(site.argument(2, "nprocs")) if site.argument(2, "nprocs") is not None else None
            of(function).spawns = (site.qualname, facts.lines.span_of_node(site.node),
                                   nprocs if isinstance(nprocs, int) and not isinstance(nprocs, bool) else None,
                                   may_not_run(facts, site))
        if site.qualname == INIT_PROCESS_GROUP and of(function).starts_group is None \
                and not _pins_visible_devices(facts):
            backend = group_backend(site)
            if backend is not None:
                of(function).starts_group = (backend, facts.lines.span_of_node(site.node))
        callee = local_callee(facts, site)
        if callee is not None and callee is not function:
            callees.setdefault(id(function), (function, []))[1].append((callee, site))
    functions = {id(f) for f in facts.functions.values()}
    for key, evidence in evidence_by_function(facts).items():
        if key in functions:
            effects.setdefault(key, Effects()).multiprocess = (evidence.what, facts.lines.span_of_node(evidence.node))
    for _ in range(8):  # helpers of helpers; a call chain in one module is short
        changed = False
        for function, called in callees.values():
            for callee, site in called:
                found = effects.get(id(callee))
                if found is None:
                    continue
                conditional = found.spawns is not None and of(function).spawns is None and may_not_run(facts, site)
                if of(function).merge(found, conditional):
                    changed = True
        if not changed:
            break
    return {key: value for key, value in effects.items() if value != Effects()}


def _not_a_literal(arg: Optional[ast.AST]) -> bool:
    return arg is not None and literal(arg) is None


def _pins_visible_devices(facts: ScriptFacts) -> bool:
    """The module writes CUDA_VISIBLE_DEVICES (each process may then see only its own GPU)."""
    from .bindings import semantic_model
    from .values import env_writes

    return facts.derived("pins_visible_devices", lambda f: bool(env_writes(semantic_model(f), "CUDA_VISIBLE_DEVICES")))


def _mentions_main(test: ast.expr) -> bool:
    """Does the test compare with "__main__" (`__name__ == "__main__"`, in any operand order)?"""
    return any(isinstance(n, ast.Constant) and n.value == "__main__" for n in ast.walk(test))


def may_not_run(facts: ScriptFacts, site: CallSite) -> bool:
    """The call may be skipped when its function runs: under an `if` other than `__name__ == "__main__"`,
    or after an `if ...: return` of the same function (`if "LOCAL_RANK" in os.environ: return fn(...)`)."""
    if site.ctx.guards:
        tests = facts.derived("guard_is_main", lambda f: {})  # id(If) -> whether it tests `__name__ == "__main__"`
        for guard, _ in site.ctx.guards:
            if id(guard) not in tests:
                tests[id(guard)] = _mentions_main(guard.test)
            if not tests[id(guard)]:
                return True
    function = site.ctx.function
    if function is None or isinstance(function, ast.Lambda):
        return False
    exits = facts.derived("guarded_exits", lambda f: {})  # id(function) -> row of its first block that may return
    if id(function) not in exits:
        exits[id(function)] = next((stmt.lineno for stmt in function.body
                                    if isinstance(stmt, (ast.If, ast.Try, ast.With))
                                    and any(isinstance(n, (ast.Return, ast.Raise)) for n in ast.walk(stmt))), None)
    row = exits[id(function)]
    return row is not None and row < site.node.lineno


def group_backend(site: CallSite) -> Optional[str]:
    """What an init_process_group(...) call starts, for a rule about the GPU it leaves unselected: "nccl",
    "default" (no backend: NCCL for CUDA tensors), "other" (a literal without nccl, or a variable); None
    when it names its device (device_id), passes **kwargs, or is a world of one."""
    if site.keyword("device_id") is not None or any(k.arg is None for k in site.node.keywords) \
            or literal(site.keyword("world_size")) == 1:
        return None
    backend = site.argument(0, "backend")
    if backend is None:
        return "default"
    value = literal(backend)
    if isinstance(value, str):
        return "nccl" if "nccl" in value.lower() else "other"
    if isinstance(backend, ast.IfExp) and "nccl" in ast.unparse(backend):
        return "nccl"
    default = _parameter_default(site.ctx.function, backend)
    if default is not None and "nccl" in default[1].lower():
        return f"nccl-unless:{default[0]}"  # `def setup(backend="nccl")`: NCCL where a call passes none
    return "other"


def _parameter_default(function, expr) -> Optional[tuple]:
    """("<position>:<name>", its literal str default) of the parameter of `function` that `expr` names
    (position as a caller counts it, self/cls left out; -1 for keyword-only); None when `expr` is no
    such parameter, or the function assigns it."""
    if not isinstance(expr, ast.Name) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    value = literal(defaults.get(expr.id)) if expr.id in defaults else None
    if not isinstance(value, str) or any(isinstance(n, ast.Name) and n.id == expr.id and isinstance(n.ctx, ast.Store)
                                         for n in ast.walk(function)):
        return None
    names = [a.arg for a in positional]
    index = names.index(expr.id) - (1 if names and names[0] in ("self", "cls") else 0) if expr.id in names else -1
    return f"{index}:{expr.id}", value


@dataclass(frozen=True)
class DeviceSelection:
    """A call after which the calling process's GPU is chosen (or may be: `kind` "imported").

    kind: "set_device" (a set_device(<not a literal>)), "literal" (set_device(0): DSL101's), "local" (a
    function of this module that reaches a set_device(<not a literal>)), "framework" (anything else that
    selects the GPU: deepspeed.initialize, Accelerator(), a local helper calling one), "imported" (a
    project function of another module: the program decides).
    """

    site: CallSite
    kind: str
    local: str = ""  # the name called (`init_distributed_mode`, `utils.setup`)
    row: int = 0  # "local": the row of the set_device it reaches


def device_selections(facts: ScriptFacts) -> dict:
    """id(function) (None: import time) -> the DeviceSelections of its own body, in source order."""
    return facts.derived("device_selections", _selections)


def _selections(facts: ScriptFacts) -> dict:
    effects = function_effects(facts)
    set_device = {id(site.node) for site in set_device_sites(facts)}
    out: dict = {}
    for site in facts.calls:
        function = site.ctx.function
        key = id(function) if function is not None else None
        found = None
        if id(site.node) in set_device:
            found = DeviceSelection(site, "set_device" if _not_a_literal(site.argument(0, "device")) else "literal")
        elif selects_device(site, facts):
            found = DeviceSelection(site, "framework")
        else:
            callee = local_callee(facts, site)
            done = effects.get(id(callee)) if callee is not None and callee is not function else None
            if done is not None and done.set_device_row:
                found = DeviceSelection(site, "local", dotted(site.node.func) or site.attr, done.set_device_row)
            elif done is not None and done.selects_device:
                found = DeviceSelection(site, "framework", dotted(site.node.func) or site.attr)
            elif callee is None and project_call(facts, site):
                found = DeviceSelection(site, "imported", f"{site.receiver}.{site.attr}" if site.receiver else site.attr)
        if found is not None:
            out.setdefault(key, []).append(found)
    for sites in out.values():
        sites.sort(key=lambda s: (s.site.node.lineno, s.site.node.col_offset))
    return out


def project_call(facts: ScriptFacts, site: CallSite) -> bool:
    """A call of a name an import binds, not rooted in the standard library or a known framework
    (`from dist_utils import setup; setup()`, `utils.init()`): maybe a project function."""
    head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
    if site.receiver is None and not isinstance(site.node.func, ast.Name):
        return False
    if head in facts.imports.relative:  # (relative imports are not in `names`)
        return True
    return head in facts.imports.names and not is_library(facts.imports.names[head])


def imports_at_load(facts: ScriptFacts) -> list:
    """(statement, module, level, names) of each import that runs whenever the module is loaded (module
    level, under no `if`) and may name a project module (relative, or rooted outside the standard
    library and the known frameworks)."""
    out = []
    for node, ctx in facts.of_type(ast.Import) + facts.of_type(ast.ImportFrom):
        if not ctx.at_import_time or ctx.guards:
            continue
        if isinstance(node, ast.Import):
            modules = [(alias.name, 0, ()) for alias in node.names]
        else:
            modules = [(node.module or "", node.level or 0, tuple(a.name for a in node.names if a.name != "*"))]
        for module, level, names in modules:
            if level or (module and not is_library(module)):
                out.append((node, module, level, names))
    out.sort(key=lambda e: (e[0].lineno, e[0].col_offset))
    return out


def import_touches_cuda(program, importer: str, module: str, level: int, names: tuple) -> Optional[tuple]:
    """(display path, row, what) of the CUDA context that importing `module` (or `from module import
    names`, which may be submodules) from `importer` creates at import time: in that module, or in a
    project module it imports at its own top level (and so on); None when no project module does."""
    for target in _import_targets(program, importer, module, level, names):
        found = _loads_cuda(program, target)
        if found is not None:
            return found
    return None


def _import_targets(program, importer: str, module: str, level: int, names: tuple) -> list:
    targets = [program.module_file(importer, module, level)] if module or level else []
    targets += [program.module_file(importer, f"{module}.{name}" if module else name, level) for name in names]
    return list(dict.fromkeys(t for t in targets if t is not None))


def _loads_cuda(program, target: str) -> Optional[tuple]:
    """What `import_touches_cuda` finds for one module, once per module of the program."""
    memo = program.__dict__.setdefault("_loads_cuda", {})
    if target in memo:
        return memo[target]
    memo[target] = None  # (an import cycle: nothing more on this path)
    exports = program.modules.get(target)
    found = None
    if exports is not None and exports.import_time_cuda is not None:
        row, what = exports.import_time_cuda
        found = program.display.get(target, target), row, what
    for ref in exports.imports if exports is not None and found is None else ():
        if ref.at_import:
            for inner in _import_targets(program, target, ref.module, ref.level, tuple(n for n, _ in ref.names)):
                found = found or _loads_cuda(program, inner)
    memo[target] = found
    return found


# -- made-up inputs ---------------------------------------------------------------------------------
# Calls that make a tensor or an array from a shape alone: their arguments are sizes, a dtype, a seed.
_FACTORIES = frozenset((*(f"torch.{name}" for name in ("zeros", "ones", "rand", "randn", "randint", "randperm", "empty",
                                                       "full", "arange", "linspace", "zeros_like", "ones_like",
                                                       "rand_like", "randn_like", "randint_like", "empty_like")),
                        *(f"numpy.{name}" for name in ("zeros", "ones", "empty", "full", "arange", "linspace",
                                                       "zeros_like", "ones_like", "empty_like"))))
# Calls that make a tensor or an array of their arguments (`torch.FloatTensor(imgs)`, `torch.from_numpy(a)`):
# made up when every argument is (a shape, a made-up array).
_CONVERTERS = frozenset(("torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor",
                         "torch.LongTensor", "torch.HalfTensor", "torch.IntTensor", "torch.BoolTensor",
                         "torch.cuda.FloatTensor", "torch.cuda.HalfTensor", "torch.cuda.LongTensor", "numpy.array",
                         "numpy.asarray", "numpy.stack", "numpy.concatenate", "torch.stack", "torch.cat"))
# Methods that give their receiver's data again (moved, cast, reshaped, taken out of a dict).
_SAME_DATA_METHODS = frozenset(("to", "cuda", "cpu", "half", "float", "bfloat16", "double", "long", "int", "type",
                                "contiguous", "astype", "requires_grad_", "unsqueeze", "squeeze", "reshape", "view",
                                "permute", "transpose", "expand", "repeat", "flatten", "clone", "detach", "copy",
                                "numpy", "pop", "get", "values"))
_MAX_HELPER_DEPTH = 3


def made_up(model, expr: ast.AST, functions: dict, assumed: Optional[set] = None) -> bool:
    """Is `expr` built only of data made up from a shape: constants, `torch.zeros`/`rand`/`numpy.random`
    arrays (also through a `np.random.RandomState(0)` generator), tensors converted from them, the
    sizes unpacked from a parameter the function uses as a shape (`N, C, H, W = input_shape` beside
    `rng.rand(*input_shape)`), displays and comprehensions of these, and what a function of this module
    (`functions`: name -> def) returns when every one of its returns is made up (`_demo_inputs(shape)`)?
    Anything else (a parameter, a loaded batch, an unknown call) is not. With `assumed`, a call of a
    name imported from the project counts as made up, and its local name (`demo_inputs`, `utils.demo`)
    is added there: the program decides (FunctionSummary.returns_made_up)."""
    return _MadeUp(model, functions, assumed).expr(expr, 0)


def returns_made_up(model, function: ast.AST, functions: dict) -> bool:
    """Does every `return` of `function` give made-up data (see `made_up`), and does it end in one?"""
    return _MadeUp(model, functions).returns(function, 0)


class _MadeUp:
    def __init__(self, model, functions: dict, assumed: Optional[set] = None):
        self.model, self.functions, self.assumed = model, functions, assumed
        self.helpers: dict = {}  # id(def) -> answer (False while it is being decided: recursion)
        self.names: set = set()  # id(Name) being decided (a loop's rebinding reaches itself)

    def returns(self, function: ast.AST, depth: int) -> bool:
        key = id(function)
        if key in self.helpers:
            return self.helpers[key]
        self.helpers[key] = False
        body = getattr(function, "body", None)
        if not isinstance(function, ast.FunctionDef) or not body or not isinstance(body[-1], ast.Return):
            return False
        returns, todo = [], list(body)
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
                return False
            if isinstance(node, ast.Return):
                returns.append(node)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.extend(ast.iter_child_nodes(node))
        answer = all(r.value is not None and self.expr(r.value, depth) for r in returns)
        self.helpers[key] = answer
        return answer

    def expr(self, node: ast.AST, depth: int) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.UnaryOp):
            return self.expr(node.operand, depth)
        if isinstance(node, ast.Starred):
            return self.expr(node.value, depth)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return all(self.expr(e, depth) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.expr(v, depth) for v in node.values)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self.expr(node.elt, depth)  # (its targets are decided by their `for`'s iterable, as Names)
        if isinstance(node, ast.DictComp):
            return self.expr(node.value, depth)
        if isinstance(node, ast.Subscript):
            return self.expr(node.value, depth)
        if isinstance(node, ast.Name):
            return self.name(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        return False

    def call(self, node: ast.Call, depth: int) -> bool:
        resolved = self.model.resolve(node.func)
        if resolved in _FACTORIES or (resolved or "").startswith("numpy.random."):
            return True
        if resolved in _CONVERTERS:
            return bool(node.args) and all(self.expr(a, depth) for a in node.args)
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.model.value_of(func.value) if isinstance(func.value, ast.Name) else func.value
            generator = isinstance(receiver, ast.Call) and (self.model.resolve(receiver.func) or "").startswith(
                "numpy.random.")  # `rng = np.random.RandomState(0); rng.rand(*shape)`
            return (generator or func.attr in _SAME_DATA_METHODS) and self.expr(func.value, depth)
        if isinstance(func, ast.Name) and resolved is None and depth < _MAX_HELPER_DEPTH:
            helper = self.functions.get(func.id)
            bindings = self.model.reaching(func.id, func)
            if helper is not None and len(bindings) == 1 and bindings[0].node is helper:
                return self.returns(helper, depth + 1)
        if self.assumed is not None and resolved and not is_library(resolved) and dotted(func):
            self.assumed.add(dotted(func))  # (a project function of another module: the program's to say)
            return True
        return False

    def name(self, node: ast.Name, depth: int) -> bool:
        bindings = self.model.reaching(node.id, node)
        if not bindings or id(node) in self.names:
            return False
        self.names.add(id(node))
        try:
            return all(self.binding(b, depth) for b in bindings)
        finally:
            self.names.discard(id(node))

    def binding(self, binding, depth: int) -> bool:
        if binding.kind in ("for", "comprehension"):
            it = binding.iter
            return it is not None and (self._range(it) or self.expr(it, depth))
        if binding.kind in ("assignment", "annotated") and binding.value is not None:
            value = binding.value
            if binding.index is not None and isinstance(value, ast.Name) and self._shape_parameter(value):
                return True  # `N, C, H, W = input_shape`: sizes
            return self.expr(value, depth)
        if binding.kind == "parameter":
            return False
        return False

    def _range(self, it: ast.AST) -> bool:
        return (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and not self.model.reaching("range", it.func))

    def _shape_parameter(self, name: ast.Name) -> bool:
        """A parameter of its function that the function passes as a shape: `*name` to a factory
        (`rng.rand(*input_shape)`, `torch.zeros(*shape)`) or as its `size=`/`shape=`."""
        bindings = self.model.reaching(name.id, name)
        if len(bindings) != 1 or bindings[0].kind != "parameter":
            return False
        function = bindings[0].scope.node
        for call in ast.walk(function):
            if not (isinstance(call, ast.Call) and self._factory_call(call)):
                continue
            if any(isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == name.id
                   for a in call.args) or any(k.arg in ("size", "shape") and isinstance(k.value, ast.Name)
                                              and k.value.id == name.id for k in call.keywords):
                return True
        return False

    def _factory_call(self, call: ast.Call) -> bool:
        resolved = self.model.resolve(call.func)
        if resolved in _FACTORIES or (resolved or "").startswith("numpy.random."):
            return True
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            receiver = self.model.value_of(func.value)
            return isinstance(receiver, ast.Call) and (self.model.resolve(receiver.func) or "").startswith("numpy.random.")
        return False


# -- grad-off helpers of other modules ---------------------------------------------------------------

def grad_off_helper(program, importer: str, local: str, kind: str) -> bool:
    """Is the project function a call of `local` in `importer` runs (not a class) a decorator that runs
    what it wraps with autograd off (`kind` "decorator"), or a `@contextmanager` whose `with` body runs
    with autograd off (`kind` "context")? FunctionSummary.grad_off_decorator / grad_off_context."""
    found = program.function_called(importer, local)
    if found is None or found[0].klass is not None:
        return False
    summary = found[1]
    return summary.grad_off_decorator if kind == "decorator" else kind == "context" and summary.grad_off_context
