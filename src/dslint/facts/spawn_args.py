"""What a worker started by torch.multiprocessing.spawn receives, and the rendezvous ports that reach
`init_process_group` (or MASTER_PORT) through it.

`mp.spawn(fn, args=(a, b))` runs `fn(i, a, b)` in each process (torch/multiprocessing/spawn.py
`_wrap`: `fn(i, *args)`), so fn's positional parameter k+1 is `args[k]`. `spawned_argument` gives that
expression when it is proven: one spawn call is the only use of the function's name in the module, the
args tuple is written out, and the parameter is not rebound. The port facts are per file
(`summary.extra["spawn_ports"]`); a value another module defines (an imported constant, the default of
an imported config class's field) is read in the project phase (`port_of`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional

from ..model import Span
from ..sources.names import dotted
from .bindings import SemanticModel, semantic_model
from .module_summary import call_shape
from .script import ScriptFacts
from .summary import summary_extractor
from .values import UNKNOWN, class_field_default, imported_name, instance_field, is_rank_expression, traced_constant

SPAWN_CALLS = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes")
INIT_PROCESS_GROUP = "torch.distributed.init_process_group"


def spawned_argument(model: SemanticModel, name: ast.AST) -> Optional[tuple[ast.expr, str]]:
    """(the `args` element a spawned worker's parameter `name` receives, the worker's name), or None
    when it is not proven (no spawn, several, the worker used otherwise, a starred or short tuple)."""
    binding = model.binding_of(name) if isinstance(name, ast.Name) else None
    if binding is None or binding.kind != "parameter" or not binding.position:
        return None  # not a parameter, or the process index (position 0)
    function = binding.scope.node
    home = binding.scope.parent
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or home is None or home.kind == "class":
        return None
    defs = home.bindings.get(function.name, [])
    if len(defs) != 1 or defs[0].kind != "def" or defs[0].node is not function:
        return None
    uses = model.uses_of(defs[0])
    if len(uses) != 1:
        return None  # called directly too, or passed elsewhere: another caller may give another value
    site = next((s for s in model.facts.calls_to(*SPAWN_CALLS) if s.argument(0, "fn") is uses[0]), None)
    args = model.value_of(site.argument(1, "args")) if site is not None else None
    if not isinstance(args, ast.Tuple) or any(isinstance(e, ast.Starred) for e in args.elts[:binding.position]):
        return None
    if binding.position > len(args.elts):
        return None  # the parameter keeps its default
    return args.elts[binding.position - 1], function.name


def is_spawn_index(model: SemanticModel, expr: Optional[ast.AST], depth: int = 0) -> bool:
    """Does `expr` evaluate to the process index torch.multiprocessing.spawn gives its worker: the
    worker's first parameter (values.is_rank_expression "spawn-index"), or a parameter of a module-level
    function that every call in its module passes such an index (`def setup(rank, world): ...
    init_process_group(rank=rank)` called as `setup(rank, world)` from the worker)? The function's name
    must be used only in those calls; a call from another module may pass another value, but then the
    module's rank is no longer proven by this file alone, and the rule that asks says nothing."""
    if expr is None or depth > 3:
        return False
    if is_rank_expression(model, expr) == "spawn-index":
        return True
    binding = model.binding_of(expr) if isinstance(expr, ast.Name) else None
    if binding is None or binding.kind != "parameter" or binding.position is None \
            or len(model.reaching(expr.id, expr)) != 1:
        return False
    function, home = binding.scope.node, binding.scope.parent
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or home is None or home.kind != "module":
        return False
    defs = home.bindings.get(function.name, [])
    if len(defs) != 1 or defs[0].kind != "def" or defs[0].node is not function:
        return False
    uses = model.uses_of(defs[0])
    for use in uses:
        call = model.parent_of(use)
        if not isinstance(call, ast.Call) or call.func is not use:
            return False
        given = [k.value for k in call.keywords if k.arg == binding.name]
        if not given and binding.position < len(call.args) and \
                not any(isinstance(a, ast.Starred) for a in call.args[:binding.position + 1]):
            given = [call.args[binding.position]]
        if len(given) != 1 or not is_spawn_index(model, given[0], depth + 1):
            return False
    return bool(uses)


@dataclass(frozen=True)
class PortSource:
    """Where a rendezvous port written into the program comes from.

    `tail`: the value is the port itself (MASTER_PORT, the last field of `f"tcp://{host}:{port}"`), not a
    URL. One of: `value` (a str/int proven in this file), `constant` (a local name imported from a project
    module), `klass` + `field` (the default of a field of an imported class, as named here). `spawned`:
    the workers it went through, which no other module may call for the value to hold."""

    span: Span
    how: str
    tail: bool
    value: Any = None
    constant: Optional[str] = None
    klass: Optional[str] = None
    field: Optional[str] = None
    spawned: tuple = ()
    # (function, parameter, its position or None, the calls of the function in its own module): `value`
    # is that parameter's default, which holds when no caller in the project passes the parameter
    defaulted: tuple = ()


def _defaulted_parameter(model: SemanticModel, name: ast.AST) -> Optional[dict]:
    """`port` of `def init_distributed(port=40112): ... MASTER_PORT = str(port)` in a module-level
    function: its default and how many calls of this module leave it unset; None when a call here
    passes it, or the function is used otherwise than called (then any value may reach it)."""
    binding = model.binding_of(name) if isinstance(name, ast.Name) else None
    if binding is None or binding.kind != "parameter" or binding.default is None:
        return None
    function, home = binding.scope.node, binding.scope.parent
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or home is None or home.kind != "module" \
            or function.decorator_list:
        return None
    defs = home.bindings.get(function.name, [])
    if len(defs) != 1 or defs[0].node is not function:
        return None
    traced = traced_constant(model, binding.default)
    if traced.value is UNKNOWN or traced.options or isinstance(traced.value, bool) \
            or not isinstance(traced.value, (str, int)):
        return None
    calls = {id(s.node.func): s.node for s in model.facts.calls}
    local = 0
    for use in model.uses_of(defs[0]):
        call = calls.get(id(use))
        if call is None:
            return None
        given, keywords, star = call_shape(call)
        if star or binding.name in keywords or (binding.position is not None and given > binding.position):
            return None
        local += 1
    return {"value": traced.value, "defaulted": (function.name, binding.name, binding.position, local)}


def _origin(model: SemanticModel, expr: Optional[ast.AST], depth: int = 0) -> Optional[dict]:
    """Where the value of `expr` is proven to come from (see PortSource), or None."""
    if expr is None or depth > 3:
        return None
    traced = traced_constant(model, expr)
    if traced.value is not UNKNOWN:
        value = traced.value
        fixed = not traced.options and isinstance(value, (str, int)) and not isinstance(value, bool)
        return {"value": value} if fixed else None  # (a command-line option's default: the launch may change it)
    imported = imported_name(model, expr)
    if imported is not None:
        return {"constant": imported[0].name}
    value = model.value_of(expr)
    found = instance_field(model, value)
    if found is not None:
        if found.local:
            return _origin(model, class_field_default(model, dotted(found.klass) or "", found.field), depth + 1)
        return {"klass": dotted(found.klass), "field": found.field}
    receiver = value.value if isinstance(value, ast.Attribute) else value
    passed = spawned_argument(model, receiver)
    if passed is None:
        return _defaulted_parameter(model, value) if depth == 0 else None
    argument, worker = passed
    if receiver is not value:  # `cfg.dist_url` of a parameter `cfg`: that field of what the spawn passes
        if any(ast.dump(s.value) == ast.dump(receiver) for s in model.attribute_stores(value.attr)):
            return None
        argument = ast.copy_location(ast.Attribute(value=argument, attr=value.attr, ctx=ast.Load()), argument)
    found = _origin(model, argument, depth + 1)
    if found is not None:
        found["spawned"] = (*found.get("spawned", ()), worker)
    return found


def _port_part(expr: ast.AST) -> tuple[Optional[ast.AST], bool]:
    """(the expression to follow, whether it is the port itself): the last field of an f-string URL
    ending in `:{port}`, else the whole value."""
    if isinstance(expr, ast.JoinedStr) and len(expr.values) >= 2:
        last, before = expr.values[-1], expr.values[-2]
        if isinstance(last, ast.FormattedValue) and last.format_spec is None and isinstance(before, ast.Constant) \
                and str(before.value).endswith(":"):
            return last.value, True
        port = str(last.value).rpartition(":")[2] if isinstance(last, ast.Constant) else ""
        if port.isdigit() and isinstance(before, ast.FormattedValue):  # f"tcp://{host}:23456"
            return ast.copy_location(ast.Constant(port), last), True
    return expr, False


@summary_extractor("spawn_ports")
def spawn_ports(facts: ScriptFacts) -> list[PortSource]:
    """The init_method URLs and MASTER_PORT values whose port the program fixes, where the value goes
    through a spawned worker's parameter, another module's constant or config class, or an f-string."""
    sites = [s for s in facts.calls_to(INIT_PROCESS_GROUP) if s.argument(1, "init_method") is not None]
    writes = [n for n, _ in facts.of_type(ast.Assign)] if "MASTER_PORT" in facts.text else []
    if not sites and not writes:
        return []
    model = semantic_model(facts)
    out: list[PortSource] = []
    for site in sites:
        expr = site.argument(1, "init_method")
        followed, tail = _port_part(model.value_of(expr))
        found = _origin(model, followed)
        if found is not None:
            out.append(PortSource(facts.lines.span_of_node(expr), "init_method", tail, **found))
    for node in writes:
        target = node.targets[0] if len(node.targets) == 1 else None
        if not (isinstance(target, ast.Subscript) and dotted(target.value) in ("os.environ", "environ")
                and isinstance(target.slice, ast.Constant) and target.slice.value == "MASTER_PORT"):
            continue
        ctx = facts.context_of(node)
        if ctx is not None and any("environ" in ast.unparse(g.test) or "MASTER_PORT" in ast.unparse(g.test)
                                   for g, _ in ctx.guards):
            continue  # set only when the launcher did not
        found = _origin(model, node.value)
        if found is not None:
            out.append(PortSource(facts.lines.span_of_node(node), "MASTER_PORT", True, **found))
    return out


def port_of(program: Any, path: str, source: PortSource) -> Optional[int]:
    """The port `source` proves, reading another module's constant or class default through the program
    layer; None when unknown, or when another module may call a worker it went through."""
    from .program import norm_path
    from .program_callers import calls_leaving_default

    path = norm_path(path)
    if any(program.referenced_elsewhere(path, worker) for worker in source.spawned):
        return None
    if source.defaulted:
        function, parameter, position, local = source.defaulted
        elsewhere = calls_leaving_default(program, path, function, position, parameter)
        if elsewhere is None or local + elsewhere == 0:
            return None  # a caller may pass another port, or nothing shows the function runs
    value = source.value
    if source.constant is not None:
        found = program.exported_constant(path, source.constant, "value_constants")
        value = found[2] if found is not None else None
    elif source.klass is not None:
        value = program.field_default(path, source.klass, source.field)[0]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    text = str(value)
    if not source.tail:
        if not text.startswith("tcp://"):
            return None
        text = text.rsplit(":", 1)[-1]
    return int(text) if text.isdigit() else None


# -- who starts the process group ----------------------------------------------------------------

# Other starts of a process group, whose ranks need not be the spawn index: a launcher's env:// group
# (init_process_group without a spawn-index rank), DeepSpeed, Accelerate, Lightning, a device mesh.
_OTHER_GROUP_STARTS = ("torch.distributed.device_mesh.init_device_mesh", "torch.distributed.init_device_mesh",
                       "deepspeed.initialize", "deepspeed.init_distributed", "accelerate.Accelerator",
                       "accelerate.PartialState", "lightning.pytorch.Trainer", "lightning.fabric.Fabric")


def group_starts(facts: ScriptFacts) -> dict:
    """How the module starts process groups: `spawn_index`, the init_process_group calls of a module that
    starts its ranks with mp.spawn whose rank= is the spawn index (`is_spawn_index`: one host, so the
    global rank is the local one); `other`, every other start (another rank, no rank, DeepSpeed,
    Accelerate, Lightning, a device mesh)."""
    model = semantic_model(facts)
    spawns = bool(facts.calls_to(*SPAWN_CALLS))
    spawn_index = other = 0
    for site in facts.calls_to(INIT_PROCESS_GROUP):
        if spawns and is_spawn_index(model, site.keyword("rank")):
            spawn_index += 1
        else:
            other += 1
    other += len(facts.calls_to(*_OTHER_GROUP_STARTS))
    return {"spawn_index": spawn_index, "other": other}


summary_extractor("group_starts")(group_starts)


def spawned_on_one_host(project: Any, entry: str) -> bool:
    """Does the program of `entry` start its ranks only through mp.spawn workers that give
    init_process_group their spawn index (in any of its modules: `group_starts`), with nothing else
    starting a group and no launch line starting it? Then every rank's global rank is its local GPU."""
    from .link import link_setups
    from .program import norm_path

    entry = norm_path(entry)
    if any(setup.launch_path is not None and norm_path(setup.script_path) == entry for setup in link_setups(project)):
        return False
    spawn_index = 0
    for module in project.program.closure(entry):
        summary = project.scripts.get(module)
        starts = summary.extra.get("group_starts") if summary is not None else None
        if starts is None:
            continue  # a module that mentions no framework starts no group
        if starts["other"]:
            return False
        spawn_index += starts["spawn_index"]
    return spawn_index > 0
