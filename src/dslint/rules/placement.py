"""DSL1xx: device and rank placement — which GPU each rank lands on, and who starts the ranks."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Optional

from ..facts.bindings import semantic_model
from ..facts.conditions import (compares_a_count_to_one, parallel_mode_switch, exclusive, in_one_gpu_actor, in_ray_actor, mentions_rank, only_rank_zero,
                                under_main_guard)
from ..facts.cuda import DDP, FSDP, cuda_init_before_fork, cuda_runtime_init, cuda_touch, fixed_cuda_device, selects_device, set_device_sites
from ..facts.distributed import FABRIC, LIGHTNING_TRAINERS, trainer_is_multiprocess
from ..facts.lightning_strategies import strategy_entry
from ..facts.link import launches_may_pass, own_gpu_per_process, single_process_launches
from ..facts.loads import loads_cpu_tensors
from ..facts.program import is_test_module, norm_path
from ..facts.program_loads import cleared_elsewhere, load_hints, rank_passed_file
from ..facts.program_effects import (device_selections, function_effects, import_touches_cuda, imports_at_load,
                                     local_callee, project_call)
from ..facts.ray_actors import actor_needs, ray_actor_class
from ..facts.program_ranks import helper_rank, helper_rank_call, several_rank_programs
from ..facts.program_reach import builds_from_strings, called_by_nothing, rank_zero_callers, reaching_entries, scope_key
from ..facts.rank_files import callers_pass_rank_files, own_rank_file, rank_file_parameter
from ..facts.script import CallSite, Context, ScriptFacts, literal, statement_of
from ..facts.spawn_args import is_spawn_index, spawned_on_one_host
from ..facts.spawn_targets import outside_spawned_code, spawn_starts_ranks
from ..facts.summary import summary_extractor
from ..facts.omegaconf_values import config_read_value
from ..facts.option_defaults import launches_pass_itself
from ..facts.instance_arguments import config_parameter_field
from ..facts.program_callers import MACHINE_DEFAULT, callers_of, calls_leaving_default, instance_field_default
from ..facts.values import (ConfigObjectRead, TracedValue, class_field_default, config_object_read, env_read_key,
                            env_writes, instance_field, imported_name, is_rank_expression, picked_by_rank,
                            traced_constant)
from ..fixes import append_keyword, codemod_fixer, make_fix, node_at
from ..model import Applicability, Location, Severity, Span
from ..sources.names import dotted, is_library
from .context import PythonContext
from .registry import decide_then, Report, decider, python_rule, file_label, short


_CUDA_INDEX = re.compile(r"^cuda:\d+$")


def _cvd_set_per_rank(ctx: PythonContext) -> bool:
    """Scripts that pin CUDA_VISIBLE_DEVICES per rank legitimately use cuda:0 afterwards."""
    for access in env_writes(semantic_model(ctx.facts), "CUDA_VISIBLE_DEVICES"):
        value = access.value if access.kind == "write" else access.default
        if value is not None and (mentions_rank(ctx.facts, value) or not isinstance(value, ast.Constant)):
            return True
    return False


def _conditional(ctx: PythonContext, node: ast.AST) -> bool:
    """Inside `x if single_process else y`, under an `if` about rank/world size/distributed, in a
    one-GPU Ray actor, run by rank 0 alone (whose GPU is cuda:0 on the first node), or in one entry
    of a table indexed by the rank."""
    where = ctx.facts.context_of(node)
    if where is None:
        return False
    if isinstance(where.parent, ast.IfExp) or in_one_gpu_actor(ctx.facts, where) or only_rank_zero(ctx.facts, node):
        return True
    if picked_by_rank(semantic_model(ctx.facts), node):
        return True  # `{0: "cuda:0", 1: "cuda:1"}[rank]`: each rank its own entry
    for guard, branch in where.guards:
        text = ast.unparse(guard.test).lower()
        if mentions_rank(ctx.facts, guard.test) or any(w in text for w in ("world", "distributed", "ddp", "n_gpu", "num_gpus", "single")):
            return True
        if compares_a_count_to_one(guard.test):
            return True
        if parallel_mode_switch(ctx.facts, guard, branch):
            return True  # `if cfg.enable_fsdp: x.to(local_rank) else: x.to("cuda:0")`: the one-process arm
    return False




@python_rule("DSL101", "hard-coded-device", severity=Severity.ERROR)
def hard_coded_device(ctx: PythonContext) -> Iterator[Report]:
    """A fixed GPU index in a script whose processes each need their own GPU (unless it sits in a class
    the program runs as a one-GPU Ray actor: `ray.remote(num_gpus=1)(Cls)`, decided by the program)."""
    facts = ctx.facts
    imports_project = any(not is_library(q) for q in facts.imports.names.values()) or bool(facts.imports.relative)
    helpers = None
    for report in _hard_coded_devices(ctx):
        needs = actor_needs(facts, report.target, report.needs, gpus=True)
        if imports_project and helpers is None:
            # (a helper of another module that pins CUDA_VISIBLE_DEVICES per call: decided once linked)
            helpers = tuple(dict.fromkeys(dotted(site.node.func) for site in facts.calls
                                          if site.calls_project_name(facts.imports) and dotted(site.node.func)))
        yield replace(report, needs=("no-imported-device-pin", (("then", needs), ("helpers", helpers)))
                      if imports_project else needs)
    if not ctx.dist.is_multiprocess and not is_test_module(ctx.path):
        yield from _helper_default_devices(ctx)


def _helper_default_devices(ctx: PythonContext) -> Iterator[Report]:
    """`def load_checkpoint(model, path, map_location="cuda:0"): torch.load(path, map_location=map_location)` in a
    helper module: a parameter whose default is one fixed GPU, used as a device. The project phase keeps it when
    every call from the other modules leaves the default and they run as several ranks (not rank 0 alone)."""
    facts = ctx.facts
    if "cuda:" not in facts.text or not facts.functions:
        return
    model = semantic_model(facts)
    seen = set()
    for site, arg, what in _device_parameters(facts):
        binding = model.binding_of(arg) if isinstance(arg, ast.Name) else None
        function = binding.scope.node if binding is not None and binding.kind == "parameter" else None
        if function is None or facts.functions.get(getattr(function, "name", "")) is not function \
                or len(model.own_scope(function).bindings.get(arg.id, ())) != 1 or _conditional(ctx, site.node):
            continue
        device = _fixed_gpu(literal(binding.default), {}) if binding.default is not None else None
        positional = [a.arg for a in function.args.posonlyargs + function.args.args]
        if device is None or (function.name, arg.id) in seen:
            continue
        seen.add((function.name, arg.id))
        position = positional.index(arg.id) if arg.id in positional else None
        if what == "map_location":
            message = (f"map_location='{short(device, 16)}' (the default of {short(arg.id, 20)}) loads the checkpoint "
                       "onto the same GPU in every rank; use map_location='cpu'")
        else:
            message = (f"'{short(device, 16)}' (the default of {short(arg.id, 20)}) is the same GPU on every rank; "
                       "pass the rank's own device")
        yield Report(arg, message, needs=("callers-keep-device-default", (("function", function.name),
                                                                          ("position", position), ("parameter", arg.id))))


def _device_parameters(facts) -> Iterator[tuple]:
    """(call, the expression that names the device, "map_location" or "device") for torch.load's
    map_location, `.to(x)`, `torch.device(x)` and the `device=` of torch functions."""
    for site in facts.calls_to("torch.load"):
        arg = site.argument(1, "map_location")
        if arg is not None:
            yield site, arg, "map_location"
    for arg, site in _device_arguments(facts):
        if site.qualname != "torch.cuda.set_device":
            yield site, arg, "device"
    for site in facts.calls:
        if site.qualname and site.qualname.startswith("torch.") and site.keyword("device") is not None:
            yield site, site.keyword("device"), "device"


@decider("callers-keep-device-default")
def _decide_callers_keep_device_default(finding, project, params):
    """Keep the finding when the other modules call the function, none binds the parameter, it is not
    rank 0 alone that calls it, and a caller's program runs as several ranks, each needing its own GPU."""
    program = project.program
    function, parameter = params["function"], params["parameter"]
    if not calls_leaving_default(program, finding.path, function, params["position"], parameter) \
            or rank_zero_callers(project, finding.path, function):
        return None
    for caller in callers_of(program, finding.path, function):
        if single_process_launches(project, caller) or own_gpu_per_process(project, caller) \
                or _imports_a_device_pin(program, caller):
            continue
        if several_rank_programs(project, caller):
            return finding
    return None


@decider("no-imported-device-pin")
def _decide_imported_device_pin(finding, project, params):
    """Drop a fixed device of a script whose program imports a module that sets CUDA_VISIBLE_DEVICES per
    process at import time (`gpu_pin.py`: `os.environ["CUDA_VISIBLE_DEVICES"] = gpus[LOCAL_RANK]`), or that
    calls a project helper setting it from its arguments: each process then sees its own GPU as cuda:0.
    Else the decision the finding needed besides."""
    program = project.program
    if _imports_a_device_pin(program, finding.path):
        return None
    for callee in params.get("helpers") or ():
        symbol = program.symbol(finding.path, callee)
        if symbol is not None and symbol.function is not None and symbol.function.pins_visible_devices:
            return None  # `pin_visible_gpu(index, gpus)`: each process sees only its own GPU
    return decide_then(finding, project, params["then"])


def _imports_a_device_pin(program, path: str) -> bool:
    """Does a module `path` imports set CUDA_VISIBLE_DEVICES per process at import time (`gpu_pin.py`)?"""
    return any(getattr(program.modules.get(m), "pins_visible_devices", False) for m in program.closure(path))


def _hard_coded_devices(ctx: PythonContext) -> Iterator[Report]:
    """A fixed GPU index in a script whose processes each need their own GPU."""
    dist = ctx.dist
    if not dist.is_multiprocess or is_test_module(ctx.path):
        return  # (a pytest file's multi-process evidence belongs to one test, not to its one-GPU tests)
    if _cvd_set_per_rank(ctx):
        return
    facts = ctx.facts
    model = semantic_model(facts)
    origins: set = set()  # one report per value: `device = "cuda:0"` used ten times is one mistake

    def fixed(site, arg, integers: bool):
        found = _traced_device(ctx, model, arg, integers)
        if found is None or _conditional(ctx, site.node):
            return None
        device, traced, key = found
        if key in origins:
            return None
        origins.add(key)
        return device, _origin(ctx, traced), ("fixed-device-everywhere", (("options", traced.options),
                                                                          ("unreferenced", unreferenced(site))))

    def unreferenced(site):
        """A debugging helper nothing calls never runs (pytest calls `test_` functions by their name)."""
        name = _callers_to_find(ctx, site.ctx)[0]
        return None if name is None or name.startswith("test_") else name

    def imported(site, arg, integers: bool, anchor, what: str):
        """A device named by a constant of another module (`from config import DEVICE`): a
        candidate the project phase decides (`_decide_imported_device`)."""
        found = imported_name(model, arg) if arg is not None else None
        if found is None and not _conditional(ctx, site.node):
            return config_read(arg, integers, anchor, what) or passed_config(arg, integers, anchor, what)
        if found is None or _conditional(ctx, site.node):
            return None
        binding, trail = found
        if id(binding) in origins or any(_conditional(ctx, _statement(model, n)) for n in (binding.node, *trail)):
            return None
        origins.add(id(binding))
        return Report(anchor, f"{short(binding.name, 30)} may be the same GPU on every rank",
                      needs=("imported-fixed-device", (("local", binding.name), ("integers", integers), ("what", what))))

    def config_read(arg, integers: bool, anchor, what: str):
        """A device read from an OmegaConf/Hydra YAML (`cfg.device`): the project phase reads the leaf
        (`_decide_config_device`)."""
        followed = model.value_of(arg) if isinstance(arg, ast.Name) else arg
        inner = _device_of_one_argument(model, followed)  # torch.device(cfg.device): the leaf it names
        read = config_object_read(model, inner if inner is not None else arg)
        if read is None:
            return None
        if followed is not arg and _conditional(ctx, _statement(model, followed)):
            return None
        followed = inner if inner is not None else followed
        key = ("config", read)
        if key in origins:
            return None
        origins.add(key)
        return Report(anchor, f"{short(dotted(followed) or 'the config value', 30)} may be the same GPU on every rank",
                      needs=("config-fixed-device", (("how", read.how), ("path", read.path), ("name", read.name),
                                                     ("keys", read.keys), ("options", read.options),
                                                     ("integers", integers), ("what", what))))

    def passed_config(arg, integers: bool, anchor, what: str):
        """`device_id=cfg.device_id` in a module-level function of this module that only other modules
        call, `cfg` its parameter: the field's default when every caller passes a fresh instance of a
        project config class that leaves the field alone (`_decide_passed_config_device`)."""
        found = config_parameter_field(model, facts, _device_of_one_argument(model, arg) or arg)
        if found is None or ("param", found) in origins:
            return None
        origins.add(("param", found))
        return Report(anchor, f"{short(dotted(arg), 30)} may be the same GPU on every rank",
                      needs=("passed-config-fixed-device", (("field", found), ("integers", integers), ("what", what))))

    for site in facts.calls_to("torch.cuda.set_device"):
        found = fixed(site, site.argument(0, "device"), True)
        if found:
            device, origin, needs = found
            yield Report(site.node, f"every rank selects GPU {short(device.split(':')[1], 12)}{origin}; use the local "
                         "rank: torch.cuda.set_device(local_rank)", needs=needs)
        else:
            candidate = imported(site, site.argument(0, "device"), True, site.node, "set_device")
            if candidate:
                yield candidate
    yield from _devices_from_class_defaults(ctx)
    if dist.framework_places_devices:
        return  # the framework moves models and batches; a literal there is its business
    for site in facts.calls_to("torch.nn.parallel.DistributedDataParallel"):
        ids = site.keyword("device_ids")
        traced = traced_constant(model, ids)
        value = traced.value
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            if not _conditional(ctx, site.node) and not any(_conditional(ctx, _statement(model, v)) for v in traced.followed):
                yield Report(ids, f"device_ids={short(value, 16)}{_origin(ctx, traced)} puts every rank's replica on "
                             "the same GPU; use device_ids=[local_rank]",
                             needs=("fixed-device-everywhere", (("options", traced.options),
                                                                ("unreferenced", unreferenced(site)))))
    for site in facts.calls_to(*FSDP, INIT_PG):
        arg = site.keyword("device_id")  # an int or a torch.device: both name the rank's GPU
        found = fixed(site, arg, True) if arg is not None else None
        if found:
            device, origin, needs = found
            yield Report(arg, f"device_id={short(ast.unparse(arg), 24)}{origin} is GPU {short(device.split(':')[1], 12)} "
                         "on every rank; use the local rank: device_id=local_rank", needs=needs)
        elif arg is not None:
            candidate = imported(site, arg, True, arg, "device")
            if candidate:
                yield candidate
    for site in facts.method_calls("cuda"):
        if site.node.args and isinstance(literal(site.node.args[0]), int) and not _conditional(ctx, site.node):
            yield Report(site.node, f".cuda({literal(site.node.args[0])}) places every rank's tensors on one GPU; "
                         "call torch.cuda.set_device(local_rank) once and use .cuda()",
                         needs=("fixed-device-everywhere", (("options", ()), ("unreferenced", unreferenced(site)))))
    for site in facts.calls_to("torch.device"):
        if _read_only_query(ctx, site.node):
            continue
        found = fixed(site, site.node, False)
        if found:
            device, origin, needs = found
            yield Report(site.node, f"{short(device, 16)}{origin} is the same GPU on every rank of this multi-process "
                         "script; use torch.device('cuda', local_rank)", needs=needs)
        else:
            candidate = imported(site, site.node, False, site.node, "device")
            if candidate:
                yield candidate
    for site in facts.method_calls("to") + [s for s in facts.calls if s.qualname and s.qualname.startswith("torch.")
                                           and s.qualname != "torch.device" and not s.qualname.startswith("torch.cuda.")]:
        if site.attr == "to":
            if site.qualname is not None:
                continue
            arg = site.node.args[0] if site.node.args else site.keyword("device")
        elif site.qualname == "torch.load":  # (`map_location="cuda:0"`: every rank loads the checkpoint onto GPU 0)
            arg = site.argument(1, "map_location")
        else:
            arg = site.keyword("device")
        if arg is None:
            continue
        found = fixed(site, arg, site.attr == "to")
        if found and site.qualname == "torch.load":
            device, origin, needs = found
            yield Report(arg, f"map_location='{short(device, 16)}'{origin} loads the checkpoint onto the same GPU in every "
                         "rank; use map_location='cpu' or the rank's own device", needs=needs)
        elif found:
            device, origin, needs = found
            yield Report(arg, f"'{short(device, 16)}'{origin} is the same GPU on every rank of this multi-process "
                         "script; use torch.device('cuda', local_rank)", needs=needs)
        else:
            candidate = imported(site, arg, site.attr == "to", arg, "device")
            if candidate:
                yield candidate


def _device_of_one_argument(model, expr: Optional[ast.AST]) -> Optional[ast.AST]:
    """X of `torch.device(X)` (one positional argument, which names the whole device), else None."""
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords and \
            not isinstance(expr.args[0], ast.Starred) and (model.resolve(expr.func) or "") == "torch.device":
        return expr.args[0]
    return None


def _traced_device(ctx: PythonContext, model, expr: Optional[ast.AST], integers: bool):
    """(the "cuda:N" `expr` places on, how it was reached, a key for its origin) when it is one
    fixed GPU: a literal, or through names, module constants, dict entries and command-line
    defaults (values.traced_constant), a `torch.device(...)` of those; None when not fixed, when a
    binding it goes through is under a rank condition, or when it is a config object's field
    (`_devices_from_class_defaults` reports those)."""
    if expr is None:
        return None
    trail = []
    node = expr
    for _ in range(4):
        following = model.assigned_value(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if following is None:
            break
        trail.append(following)
        node = following
    if instance_field(model, node) is not None:
        return None
    parts = [node]
    if isinstance(node, ast.Call) and (model.resolve(node.func) or "") == "torch.device":
        if node.keywords or not 1 <= len(node.args) <= 2 or any(isinstance(a, ast.Starred) for a in node.args):
            device = fixed_cuda_device(node)  # torch.device(type="cuda", index=0): as written
            return (device, TracedValue(device, (), tuple(trail)), id(trail[-1] if trail else expr)) if device else None
        parts = list(node.args)
        if any(instance_field(model, model.value_of(a)) is not None for a in parts):
            return None
    traced = [traced_constant(model, part) for part in parts]
    values = [t.value for t in traced]
    device = None
    if len(values) == 2:
        if values[0] == "cuda" and isinstance(values[1], int) and not isinstance(values[1], bool):
            device = f"cuda:{values[1]}"
    elif isinstance(values[0], str) and _CUDA_INDEX.match(values[0].strip()):
        device = values[0].strip()
    elif integers and isinstance(values[0], int) and not isinstance(values[0], bool) and parts[0] is node:
        device = f"cuda:{values[0]}"
    if device is None:
        return None
    followed = tuple(trail) + tuple(f for t in traced for f in t.followed)
    if any(_conditional(ctx, _statement(model, f)) for f in followed):
        return None
    options = tuple(dict.fromkeys(o for t in traced for o in t.options))
    combined = TracedValue(device, options, followed)
    key = ("options", options) if options else id(followed[-1]) if followed else id(expr)
    return device, combined, key


def _statement(model, node: ast.AST) -> ast.AST:
    """The statement that holds an expression (any node: constants are not indexed by the facts)."""
    while node is not None and not isinstance(node, ast.stmt):
        holder = model.parent_of(node)
        if holder is None:
            break
        node = holder
    return node


def _origin(ctx: PythonContext, traced) -> str:
    """Where a fixed device came from, for the message: "" for a literal written at the use."""
    if traced.options:
        return f" (the default of {short(' / '.join(traced.options), 30)})"
    if traced.followed:
        return f" (set at line {traced.followed[-1].lineno})"
    return ""


def _device_arguments(facts) -> Iterator[tuple[ast.AST, object]]:
    """(expression, call) for each place a device is chosen: set_device, torch.device, .to, device=."""
    for site in facts.calls_to("torch.cuda.set_device", "torch.device"):
        arg = site.argument(0, "device")
        if arg is not None:
            yield arg, site
    for site in facts.method_calls("to"):
        if site.qualname is None:
            arg = site.node.args[0] if site.node.args else site.keyword("device")
            if arg is not None:
                yield arg, site


def _devices_from_class_defaults(ctx: PythonContext) -> Iterator[Report]:

    """`torch.device(cfg.device)` where `cfg` is a config object whose `device` field keeps its
    class default (a dataclass of experiment defaults, maybe in another module)."""
    facts = ctx.facts
    if "." not in facts.text:
        return
    model = semantic_model(facts)
    seen: set = set()
    for arg, site in _device_arguments(facts):
        value = model.value_of(arg)
        if isinstance(value, ast.Call) and (model.resolve(value.func) or "") == "torch.device" and len(value.args) == 1:
            value = model.value_of(value.args[0])
        found = instance_field(model, value) if isinstance(value, ast.Attribute) else None
        if found is None or _conditional(ctx, site.node):
            continue
        klass = dotted(found.klass) or ""
        if (klass, found.field) in seen:
            continue
        seen.add((klass, found.field))
        if found.local:
            device = fixed_cuda_device(class_field_default(model, klass, found.field))
            if device:
                yield Report(value, f"{short(klass + '.' + found.field)} defaults to '{short(device, 16)}', the same "
                             "GPU on every rank; derive it from the local rank",
                             needs=("fixed-device-everywhere", (("options", ()),)))
        else:
            yield Report(value, f"{short(klass + '.' + found.field)} is the same GPU on every rank; derive it "
                         "from the local rank", needs=("class-default-is-fixed-device",
                                                       (("klass", klass), ("field", found.field))))


@decider("ray-actor-class")
def _decide_ray_actor_class(finding, project, params):
    """Drop a finding in a class that the program makes a Ray actor class with the function form of
    `ray.remote` (`ray.remote(num_gpus=1)(Learner)` in the driver; with GPUs granted, where `gpus`):
    Ray shows each actor only the GPUs it grants, so its cuda:0 is its own. Else the decision the
    finding needed besides."""
    if ray_actor_class(project, finding.path, params["klass"], params["gpus"]) is not None:
        return None
    return decide_then(finding, project, params["then"])


@decider("fixed-device-everywhere")
def _decide_fixed_device(finding, project, params):
    """Drop a fixed device when every launch of its program starts one process, or when the value
    is a command-line default (`options`) that a launch line of the program passes, or may pass
    (`"$@"`, a variable dslint cannot read), or that its launcher passes itself (`--local_rank`), or when
    it sits in a function nothing in the project calls
    (`unreferenced`: not named in its own module, and no other module imports or calls it)."""
    if single_process_launches(project, finding.path) or own_gpu_per_process(project, finding.path):
        return None  # (one process, or Slurm tasks that each see only their own GPUs)
    name = params.get("unreferenced")
    if name and not project.program.referenced_elsewhere(finding.path, name):
        return None
    options = params.get("options") or ()
    if launches_may_pass(project, finding.path, options) or launches_pass_itself(project, finding.path, options):
        return None  # (`--local_rank`: torch.distributed.launch and deepspeed pass it to each process)
    return finding


@decider("imported-fixed-device")
def _decide_imported_device(finding, project, params):
    """Keep the finding when the imported name is a constant of a project module (maybe re-exported
    by a package) that is one fixed GPU, and a launch of its program starts several processes."""
    if single_process_launches(project, finding.path) or own_gpu_per_process(project, finding.path):
        return None  # (one process, or Slurm tasks that each see only their own GPUs)
    found = project.program.exported_constant(norm_path(finding.path), params["local"], "value_constants")
    if found is None:
        return None
    target, name, value = found
    device = _fixed_gpu(value, params)
    if device is None:
        return None
    origin = f"{short(name, 30)} of {file_label(project.program.display.get(target, target))}"
    return replace(finding, message=_fixed_device_message(device, origin, params))


@decider("passed-config-fixed-device")
def _decide_passed_config_device(finding, project, params):
    """Keep the finding when every caller in other modules passes a fresh config instance whose class
    defaults the field to one fixed GPU and leaves it so, and a launch of its program starts several
    processes."""
    if single_process_launches(project, finding.path) or own_gpu_per_process(project, finding.path):
        return None
    function, position, parameter, field = params["field"]
    value = instance_field_default(project, norm_path(finding.path), function, position, parameter, field, (int, str))
    device = _fixed_gpu(value, params) if value != MACHINE_DEFAULT else None
    if device is None:
        return None
    origin = f"the default of {short(field, 24)} in the config its callers pass"
    if params.get("what") == "device":
        return replace(finding, message=f"{short(parameter + '.' + field, 30)} ({origin}) is GPU "
                                        f"{short(device.split(':')[1], 12)} on every rank; use the local rank")
    return replace(finding, message=_fixed_device_message(device, origin, params))


@decider("config-fixed-device")
def _decide_config_device(finding, project, params):
    """Keep the finding when the YAML leaf is one fixed GPU for every launch of the script, and a launch
    of its program starts several processes."""
    if single_process_launches(project, finding.path) or own_gpu_per_process(project, finding.path):
        return None  # (one process, or Slurm tasks that each see only their own GPUs)
    read = ConfigObjectRead(params["how"], params["path"], params["name"], tuple(params["keys"]), tuple(params["options"]))
    value = config_read_value(project, finding.path, read)
    device = _fixed_gpu(value, params)
    if device is None:
        return None
    where = read.path if read.how == "load" else f"{read.path}/{read.name} (Hydra)"
    origin = f"{'.'.join(read.keys)} in {short(where, 40)}"
    return replace(finding, message=_fixed_device_message(device, origin, params))


def _fixed_gpu(value, params) -> Optional[str]:
    """`cuda:N` for a value that names one GPU (an int too, where the call reads ints as GPUs)."""
    if isinstance(value, str) and _CUDA_INDEX.match(value.strip()):
        return value.strip()
    if params.get("integers") and isinstance(value, int) and not isinstance(value, bool):
        return f"cuda:{value}"
    return None


def _fixed_device_message(device: str, origin: str, params) -> str:
    if params.get("what") == "set_device":
        return (f"every rank selects GPU {short(device.split(':')[1], 12)} ({origin}); use the local rank: "
                "torch.cuda.set_device(local_rank)")
    return (f"'{short(device, 16)}' ({origin}) is the same GPU on every rank of this multi-process script; "
            "use torch.device('cuda', local_rank)")


@decider("class-default-is-fixed-device")
def _decide_class_default(finding, project, params):
    """Keep the finding when the class (another module's) defaults the field to one fixed GPU, and
    a launch of its program starts several processes (or none is found)."""
    if single_process_launches(project, finding.path):
        return None
    default, symbol = project.program.field_default(finding.path, params["klass"], params["field"])
    device = fixed_cuda_device(ast.Constant(default)) if isinstance(default, (str, int)) and not isinstance(default, bool) else None
    if device is None or not isinstance(default, str):
        return None
    return replace(finding, message=f"{short(params['klass'] + '.' + params['field'])} defaults to "
                   f"'{short(device, 16)}' ({file_label(symbol.path)}:{symbol.klass.row}), the same GPU on every rank; "
                   "derive it from the local rank")


_READ_ONLY_QUERIES = ("get_device_properties", "get_device_name", "get_device_capability", "mem_get_info",
                      "memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats", "utilization")


def _read_only_query(ctx: PythonContext, node: ast.AST) -> bool:
    """`torch.cuda.get_device_properties(torch.device("cuda:0"))`: asks about a GPU, places nothing."""
    where = ctx.facts.context_of(node)
    parent = where.parent if where else None
    return isinstance(parent, ast.Call) and (ctx.facts.resolve(parent.func) or "").rsplit(".", 1)[-1] in _READ_ONLY_QUERIES


@python_rule("DSL102", "torch-load-without-map-location", severity=Severity.WARNING, fix=Applicability.SAFE)
def torch_load_without_map_location(ctx: PythonContext) -> Iterator[Report]:
    """torch.load restores tensors onto the device they were saved from: every rank onto cuda:0."""
    if is_test_module(ctx.path):
        return  # a test file's Fabric(devices=2) test says nothing about its torch.load test
    # Without evidence of its own, a module (a checkpoint helper) may still run in a multi-rank
    # program: the project phase decides (facts/program_ranks.py).
    own = ctx.dist.is_multiprocess
    for site in ctx.facts.calls_to("torch.load"):
        if site.argument(1, "map_location") is not None or site.has_star_kwargs:
            continue
        if any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        if _other_branch_maps(ctx, site) or loads_cpu_tensors(ctx.facts, site) or own_rank_file(ctx.facts, site) \
                or rank_passed_file(ctx.facts, site):
            continue
        if only_rank_zero(ctx.facts, site.node):
            continue  # rank 0's GPU is the one that saved it (cuda:0): no other rank holds a copy there
        span = ctx.facts.lines.span_of_node(site.node)
        unreferenced, reach = _callers_to_find(ctx, site.ctx)
        guarded = any("__main__" not in ast.unparse(guard.test) for guard, _ in site.ctx.guards)
        # (a module whose only evidence is its own mp.spawn: code the spawned ranks never reach runs in the
        # spawning process or in the tools that import it, as in a module without evidence)
        mine = own and not outside_spawned_code(ctx.facts, site.ctx.function)
        scope = scope_key(site.ctx.function, site.ctx.class_, ctx.facts)
        rank_param = rank_file_parameter(ctx.facts, site) if scope else None
        yield Report(site.node, "torch.load without map_location puts the tensors on the GPU that saved them (cuda:0) "
                     "in every rank; pass map_location=\"cpu\"",

                     fix=make_fix("add-map-location", 'Add map_location="cpu"', Applicability.SAFE,
                                  row=span.start.row, column=span.start.column),
                     needs=("several-ranks", (("unreferenced", unreferenced), ("own", mine), ("guarded", guarded),
                                              ("reach", reach), ("scope", scope), ("rank_param", rank_param),
                                              ("elsewhere", load_hints(ctx.facts, site)),
                                              ("main_block", any("__main__" in ast.unparse(g.test)
                                                                 for g, _ in site.ctx.guards)))))


def _callers_to_find(ctx: PythonContext, where: Context) -> tuple[Optional[str], Optional[tuple]]:
    """(unreferenced, reach) of code in a function: the module-level function's name when its own
    module never names it, and (function, None) or (method, class) when only calls from other
    modules can reach it (the several-ranks decider keeps the programs that make them)."""
    function = where.function
    unreferenced = getattr(function, "name", None) if where.class_ is None and function is not None and \
        not _referenced_here(ctx, function) else None
    return unreferenced, (unreferenced, None) if unreferenced else _class_call_only(ctx, where)


def _class_call_only(ctx: PythonContext, where: Context) -> Optional[tuple]:
    """(method, class) for code in a classmethod or staticmethod of a module-level class that its
    own module never names (`Net.from_checkpoint(path)`): only `Class.method(...)` calls in other
    modules reach it, and the project phase looks for them. None when its callers may be unseen."""
    function, owner = where.function, where.class_
    if owner is None or owner not in ctx.facts.tree.body or function not in owner.body:
        return None
    kinds = {dotted(d) for d in function.decorator_list}
    if kinds not in ({"classmethod"}, {"staticmethod"}) or function.name.startswith("__"):
        return None
    if _named_again(ctx.facts, function.name) and (
            function.name in ctx.facts.derived("loaded_attributes", _loaded_attributes) or
            function.name in ctx.facts.derived("loaded_names", _loaded_names)):
        return None
    return function.name, owner.name


def _named_again(facts: ScriptFacts, name: str) -> bool:
    """Does the word occur in the module beside its `def`? (A read of it needs the word: when
    it does not, the walks below are spared.)"""
    return len(re.findall(rf"\b{re.escape(name)}\b", facts.text)) > 1


def _loaded_attributes(facts: ScriptFacts) -> frozenset:
    """Every attribute name the module reads (`self.load`, `cls.load`, `Net.load`)."""
    return frozenset(n.attr for n, _ in facts.of_type(ast.Attribute) if isinstance(n.ctx, ast.Load))


def _referenced_here(ctx: PythonContext, function: ast.AST) -> bool:
    """Is the module-level function named anywhere in its module (called, or passed on), or
    decorated (a decorator may register it: `@app.command`, `@hydra.main`)?"""
    return bool(function.decorator_list) or (_named_again(ctx.facts, function.name) and
                                             function.name in ctx.facts.derived("loaded_names", _loaded_names))


def _loaded_names(facts: ScriptFacts) -> frozenset:
    """Every name the module reads (one walk of the tree, for all the functions asked about)."""
    return frozenset(n.id for n in ast.walk(facts.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))


def _other_branch_maps(ctx: PythonContext, site) -> bool:
    """`if args.gpu is None: torch.load(p) else: torch.load(p, map_location=f"cuda:{args.gpu}")`:
    the author chose the device per branch; the unmapped branch is the single-process path."""
    for guard, in_body in site.ctx.guards:
        other = guard.orelse if in_body else guard.body
        for statement in other:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and ctx.facts.resolve(node.func) == "torch.load" and (
                        len(node.args) > 1 or any(k.arg == "map_location" for k in node.keywords)):
                    return True
    return False


@decider("several-ranks")
def _decide_several_ranks(finding, project, params):
    """Drop a finding about several processes when every launch of its program starts one, or
    when it sits in a function nothing in the project calls (`unreferenced`: not named in its own
    module, and no other module imports or calls it). A module with no evidence of its own
    (`own` False) keeps it only inside a program that runs as several processes, named in `related`."""
    name = params.get("unreferenced")
    if name and not project.program.referenced_elsewhere(finding.path, name):
        return None
    if cleared_elsewhere(project, finding.path, params.get("elsewhere")):
        return None  # another module shows the file holds CPU tensors, or is the rank's own (facts/program_loads.py)
    if rank_zero_callers(project, finding.path, params.get("scope")):
        return None  # every call of its function, in any module, is one only rank 0 makes (facts/program_reach.py)
    rank_param = params.get("rank_param")
    if rank_param and callers_pass_rank_files(project, params["scope"], *rank_param):
        return None  # every caller passes a file of the rank's own (facts/rank_files.py)
    if params.get("own", True):
        if single_process_launches(project, finding.path) or _called_by_nothing(project, finding.path, params):
            return None
        return finding
    programs = several_rank_programs(project, finding.path)
    if params.get("guarded"):  # a branch of a program also launched as one process may be its single-process path
        programs = [p for p in programs if not p.also_one]
    reach = params.get("reach")
    if reach:  # imported by a trainer is not called by it: keep the programs whose modules call it
        programs = [p for p in programs if project.program.program_calls(p.entry, finding.path, *reach)]
    entries = reaching_entries(project, finding.path, params.get("scope"))
    if entries is not None:  # the function runs only in the programs whose code calls it (facts/program_reach.py)
        programs = [p for p in programs if norm_path(p.entry) in entries or builds_from_strings(project, p.entry)]
    if params.get("main_block"):  # a `__main__` block runs only in the program the module itself starts
        programs = [p for p in programs if norm_path(p.entry) == norm_path(finding.path)]
    if not programs:
        return None
    return replace(finding, related=[*finding.related, *programs[0].related])


def _called_by_nothing(project, path: str, params: dict) -> bool:
    """A method nothing can call (facts/program_reach.py) runs in no program, its own module's included,
    unless one of them builds objects from strings."""
    return called_by_nothing(project, path, params.get("scope")) and not any(
        builds_from_strings(project, entry) for entry in project.program.programs_of(path))


@codemod_fixer("add-map-location")
def _add_map_location(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or any(a.keyword is not None and a.keyword.value == "map_location" for a in call.args):
        return None
    new_call = append_keyword(call, "map_location", cst.SimpleString('"cpu"'))
    return module.deep_replace(call, new_call)


SPAWN = "torch.multiprocessing.spawn"
START_PROCESSES = "torch.multiprocessing.start_processes"
NOTEBOOK_LAUNCHER = "accelerate.notebook_launcher"
INIT_PG = "torch.distributed.init_process_group"
CVD = "CUDA_VISIBLE_DEVICES"


def _before(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)


def _import_time_touches(facts: ScriptFacts, touch=cuda_touch) -> list[tuple[CallSite, str]]:
    """CUDA touched when the module is imported (module level, class bodies, default arguments),
    outside `if __name__ == "__main__":` — this runs in every process, spawned ones included."""
    return [(s, why) for s in facts.calls if s.ctx.at_import_time and not under_main_guard(s.ctx)
            and (why := touch(s, facts))]


# -- DSL103 ----------------------------------------------------------------------------------

def _global_rank_source(model, expr: Optional[ast.AST]) -> Optional[str]:
    """What makes `expr` the global rank (`dist.get_rank()`, RANK), through bindings; None if it is not."""
    if expr is None or is_rank_expression(model, expr) != "global":
        return None
    return _rank_origin(model, expr, 0)


def _rank_origin(model, expr: ast.AST, depth: int) -> str:
    """One phrase naming where a global rank comes from: the call (`torch.distributed.get_rank()`),
    the variable, the module's helper that returns it, or the expression itself."""
    value = model.value_of(expr)
    if isinstance(value, ast.Call) and len(value.args) == 1 and (model.resolve(value.func) or "") in ("int", ""):
        value = model.value_of(value.args[0])
    branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else \
        value.values if isinstance(value, ast.BoolOp) else []
    ranked = next((b for b in branches if is_rank_expression(model, b) == "global"), None)
    if ranked is not None and depth < 3:  # `dist.get_rank() if dist.is_initialized() else 0`
        return _rank_origin(model, ranked, depth + 1)
    if isinstance(value, ast.Call):
        name = model.resolve(value.func)
        if name is not None and name.endswith("get_rank"):
            return f"{name}()"
        if name is None and dotted(value.func):
            return f"returned by {dotted(value.func)}()"
    binding = model.binding_of(value) if isinstance(value, ast.Name) else None
    if binding is not None and binding.index and isinstance(binding.value, ast.Call) and dotted(binding.value.func):
        return f"returned by {dotted(binding.value.func)}()"  # `rank, world = init()`
    key = env_read_key(model, value) if value is not None else None
    return f"the {key} environment variable" if key else ast.unparse(value)


def _single_host_spawn(facts: ScriptFacts, model) -> bool:
    """The module starts its world with mp.spawn and gives each process its spawn index as its rank
    (in the worker, or through a helper of the module the worker passes it to: spawn_args.is_spawn_index):
    one host, so the global rank is the local rank."""
    if not (facts.calls_to(SPAWN) or facts.calls_to(START_PROCESSES)):
        return False
    ranks = [r for s in facts.calls_to(INIT_PG) if (r := s.keyword("rank")) is not None]
    return bool(ranks) and all(is_spawn_index(model, r) for r in ranks)


def _device_index_uses(facts: ScriptFacts) -> Iterator[tuple[ast.AST, CallSite, str]]:
    """(index expression, call, what) for every place a GPU index is chosen."""
    for site in set_device_sites(facts):
        arg = site.argument(0, "device")
        if arg is not None:
            yield arg, site, "torch.cuda.set_device"
    for site in facts.calls_to(DDP):
        ids = site.keyword("device_ids")
        if isinstance(ids, (ast.List, ast.Tuple)) and len(ids.elts) == 1:
            yield ids.elts[0], site, "device_ids"
    for site in facts.calls_to(*FSDP, INIT_PG):
        device_id = site.keyword("device_id")  # an int index, or a torch.device (its index is found below)
        if device_id is not None:
            yield device_id, site, "device_id"
    for site in facts.calls_to("torch.device"):
        if len(site.node.args) == 2 and literal(site.node.args[0]) == "cuda":
            yield site.node.args[1], site, "torch.device"
        elif len(site.node.args) == 1 and isinstance(site.node.args[0], ast.JoinedStr):
            values = [v.value for v in site.node.args[0].values if isinstance(v, ast.FormattedValue)]
            if len(values) == 1 and "cuda:" in ast.unparse(site.node.args[0]):
                yield values[0], site, "torch.device"
    for attr in ("cuda", "to"):
        for site in facts.method_calls(attr):
            if site.qualname is None and len(site.node.args) == 1 and not site.node.keywords:
                yield site.node.args[0], site, f".{attr}()"


@python_rule("DSL103", "global-rank-as-device", severity=Severity.ERROR)
def global_rank_as_device(ctx: PythonContext) -> Iterator[Report]:
    """The global rank (0..world_size-1) used as a GPU index: fine on one node, wrong on the second."""
    facts = ctx.facts
    if is_test_module(ctx.path):
        return  # (pytest's multi-process tests start their ranks on one machine)
    own = ctx.dist.is_multiprocess  # else only a helper's rank, in a program of several processes
    model = semantic_model(facts)
    if _single_host_spawn(facts, model):
        return
    for index, site, what in _device_index_uses(facts):
        source = _global_rank_source(model, index) if own else None
        if source is not None:  # (a trainer module whose programs start their ranks with mp.spawn: they decide)
            yield Report(index, _global_rank_message(source), needs=("global-rank-in-programs", ()))
            continue
        helper = helper_rank_call(facts, model, index)  # `rank = dist_utils.get_rank()`: the program says
        if helper is not None:
            yield Report(index, _global_rank_message(f"returned by {helper[0]}()"),
                         needs=("rank-of-helper", (("local", helper[0]), ("index", helper[1]), ("own", own))))


def _global_rank_message(source: str, limit: int = 40) -> str:
    return (f"the GPU index is the global rank ({short(source, limit)}), too large on a second node; "
            "use the local rank: int(os.environ['LOCAL_RANK'])")


@decider("global-rank-in-programs")
def _decide_global_rank_in_programs(finding, project, params):
    """Drop the global rank of a module (a trainer) when every program it runs in as several processes
    starts its ranks only through single-host mp.spawn workers given their spawn index
    (spawn_args.spawned_on_one_host); keep it when none is known."""
    programs = several_rank_programs(project, finding.path)
    if programs and all(spawned_on_one_host(project, p.entry) for p in programs):
        return None
    return finding


@decider("rank-of-helper")
def _decide_rank_of_helper(finding, project, params):
    """Keep the finding when the project function returns the global rank (in the place the call's
    value is read from), and the program runs as several processes: by the module's own evidence
    unless every launch starts one, else by the programs it runs in (named in `related`)."""
    found = helper_rank(project.program, finding.path, params["local"], params["index"])
    if found is None or found[0] != "global":
        return None
    symbol = found[1]
    related = [(symbol.path, _row_span(symbol.function.row), f"{short(params['local'], 30)}() returns the global rank")]
    if params["own"]:
        if single_process_launches(project, finding.path):
            return None
    else:
        programs = several_rank_programs(project, finding.path)
        if not programs:
            return None
        related += programs[0].related
    message = _global_rank_message(f"returned by {short(params['local'], 30)}() of {file_label(symbol.path)}", 80)
    return replace(finding, message=message, related=[*finding.related, *related])


# -- DSL104 ----------------------------------------------------------------------------------

def _backend_is_nccl(facts: ScriptFacts, site: CallSite) -> Optional[bool]:
    backend = site.argument(0, "backend")
    if backend is None:
        return None  # default: nccl for CUDA tensors
    value = literal(backend)
    if isinstance(value, str):
        return "nccl" in value.lower()
    if isinstance(backend, ast.IfExp) and "nccl" in ast.unparse(backend):
        return True
    if isinstance(backend, (ast.Name, ast.Attribute)):  # `BACKEND = "nccl"`, a constant of the module
        from ..facts.values import constant

        value = constant(semantic_model(facts), backend)
        if isinstance(value, str):
            return "nccl" in value.lower()
    return False  # a variable: we do not know


def _binds_device(facts: ScriptFacts) -> bool:
    if any(selects_device(site, facts) for site in facts.calls):
        return True
    return bool(env_writes(semantic_model(facts), CVD))  # each process then sees only its own GPU


def _unindexed_cuda(facts: ScriptFacts) -> Optional[CallSite]:
    for site in facts.calls:
        if cuda_touch(site, facts):
            return site
    return None


def _local_rank_in_scope(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    """A name that holds the local rank where `site` runs (assigned before it, or a parameter)."""
    function = site.ctx.function
    candidates = []
    for a in facts.assignments:
        if a.ctx.function is function and _before(a.node, site.node) and "." not in a.name and not a.ctx.guards:
            value = a.value
            inner = value.args[0] if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id == "int" and value.args else value
            if env_read_key(semantic_model(facts), inner) == "LOCAL_RANK" or (a.name.lower().replace("_", "") == "localrank" and mentions_rank(facts, value)):
                candidates.append(a.name)
    if function is not None and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for arg in function.args.args + function.args.kwonlyargs:
            if arg.arg.lower().replace("_", "") == "localrank":
                candidates.append(arg.arg)
    return candidates[0] if candidates else None


@python_rule("DSL104", "process-group-without-device", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def process_group_without_device(ctx: PythonContext) -> Iterator[Report]:
    """An NCCL process group while no rank ever selects its GPU."""
    facts = ctx.facts
    if ctx.dist.framework_places_devices or _binds_device(facts):
        return
    unindexed = _unindexed_cuda(facts)
    barriers = [s for s in facts.calls_to("torch.distributed.barrier") if s.keyword("device_ids") is None]
    fsdp = [s for s in facts.calls_to(*FSDP) if s.keyword("device_id") is None and not s.has_star_kwargs]
    pinned = [s for s in facts.calls_to("torch.utils.data.DataLoader") if literal(s.keyword("pin_memory")) is True]
    if unindexed is None and not barriers and not fsdp and not pinned:
        return  # every placement names its device and nothing guesses one
    for site in facts.calls_to(INIT_PG):
        if site.keyword("device_id") is not None or site.has_star_kwargs or literal(site.keyword("world_size")) == 1:
            continue
        if in_ray_actor(facts, site.ctx):
            continue  # (a Ray actor sees only the GPUs Ray grants it: its cuda:0 is its own)
        nccl = _backend_is_nccl(facts, site)
        if nccl is False or (nccl is None and unindexed is None and not fsdp and not pinned):
            continue
        symptom = _no_device_symptom(facts, unindexed, barriers, fsdp, pinned)
        fix = None
        local_rank = _local_rank_in_scope(facts, site)
        statement = statement_of(facts, site.node)
        if local_rank and statement is not None and facts.imports.names.get("torch") == "torch":
            fix = make_fix("insert-set-device", f"Call torch.cuda.set_device({local_rank}) before init_process_group",
                           Applicability.UNSAFE, row=statement.lineno, column=statement.col_offset + 1,
                           local_rank=local_rank)
        yield Report(site.node, f"no rank selects its GPU: {symptom}; call torch.cuda.set_device(local_rank) before "
                     "init_process_group", fix=fix,
                     needs=actor_needs(facts, site.node, ("no-device-selection-in-program", ()), gpus=False))
    if not facts.calls_to(INIT_PG):
        for report in _group_by_helper(facts, _no_device_symptom(facts, unindexed, barriers, fsdp, pinned),
                                       unindexed is not None or bool(fsdp) or bool(pinned)):
            yield replace(report, needs=actor_needs(facts, report.target, report.needs, gpus=False))


def _no_device_symptom(facts: ScriptFacts, unindexed, barriers: list, fsdp: list, pinned: list) -> str:
    if pinned and unindexed is None and not fsdp:
        return f"the pinned DataLoader on line {pinned[0].node.lineno} creates a CUDA context on cuda:0 in every rank"
    if fsdp:
        return f"FSDP on line {fsdp[0].node.lineno} (no device_id) computes on cuda:0 in every rank"
    if unindexed is not None:
        return f"'{short(cuda_touch(unindexed, facts), 24)}' on line {unindexed.node.lineno} lands on cuda:0 in every rank"
    return f"dist.barrier() on line {barriers[0].node.lineno} has to guess the GPU and may hang"


def _group_by_helper(facts: ScriptFacts, symptom: str, guessed: bool) -> Iterator[Report]:
    """The process group started by a project function of another module (`init_distributed()` of
    dist_utils.py): one candidate per function called, which the program decides. `guessed`: something
    here lands on the current GPU (a group started with no backend is NCCL for it)."""
    seen = set()
    for site in facts.calls:
        local = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
        if local in seen or local_callee(facts, site) is not None or not project_call(facts, site):
            continue
        seen.add(local)
        yield Report(site.node, f"no rank selects its GPU: {symptom}; call torch.cuda.set_device(local_rank) in "
                     f"{short(local, 24)}() before init_process_group",
                     needs=("group-started-by-helper", (("local", local), ("guessed", guessed),
                                                        ("passed", _passed_arguments(site.node)))))


def _passed_arguments(call: ast.Call) -> tuple:
    """(positional count, keyword names) a call gives; -1 positional behind a *args or **kwargs."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return -1, ()
    return len(call.args), tuple(k.arg for k in call.keywords)


@decider("group-started-by-helper")
def _decide_group_by_helper(finding, project, params):
    """Keep the finding when the called project function starts an NCCL process group without a device
    and no module of the program selects the GPU."""
    program = project.program
    found = program.function_called(finding.path, params["local"])
    started = found[1].starts_group if found is not None else None
    if started is not None and started[0].startswith("nccl-unless:"):  # `def setup(backend="nccl")`
        index, _, name = started[0].partition(":")[2].partition(":")
        count, keywords = params.get("passed", (-1, ()))
        given = count < 0 or name in keywords or 0 <= int(index) < count
        started = ("other" if given else "nccl", started[1])
    if started is None or started[0] == "other" or (started[0] == "default" and not params["guessed"]):
        return None
    if program.selects_device_anywhere(finding.path):
        return None
    note = (found[0].path, started[1], f"{short(params['local'], 24)}() starts the process group here")
    return replace(finding, related=[*finding.related, note])


@decider("no-device-selection-in-program")
def _decide_device_selection(finding, project, params):
    """Drop the finding when another module of the same program selects the device (a setup helper)."""
    return None if project.program.selects_device_anywhere(finding.path) else finding


@codemod_fixer("insert-set-device")
def _insert_set_device(module, positions, params):
    import libcst as cst

    for node, where in positions.items():
        if isinstance(node, cst.SimpleStatementLine) and where.start.line == params["row"] \
                and where.start.column == params["column"] - 1:
            target = node
            break
    else:
        return None
    if "set_device" in module.code_for_node(target):
        return None
    new = cst.parse_statement(f"torch.cuda.set_device({params['local_rank']})\n", config=module.config_for_parsing)
    return module.deep_replace(target, cst.FlattenSentinel([new, target]))


# -- DSL105 ----------------------------------------------------------------------------------

@python_rule("DSL105", "cuda-before-set-device", severity=Severity.WARNING)
def cuda_before_set_device(ctx: PythonContext) -> Iterator[Report]:
    """CUDA used before the rank selects its GPU: a context (and maybe tensors) on cuda:0 in every rank.

    The GPU is selected by set_device, or by a call of a function that reaches one (this module's, or
    another module's: then the project phase decides); a touch after the first such call is fine."""
    facts = ctx.facts
    own = ctx.dist.is_multiprocess
    if not own and is_test_module(ctx.path):
        return
    yield from _imports_before_selection(facts, own)
    if not any(cuda_touch(site, facts) for site in facts.calls):
        return  # nothing here makes a CUDA context (directly or through a helper of this module)
    selections = device_selections(facts)
    seen: set[int] = set()
    later: list = []  # the selections of every function, for what runs at import time
    by_function: dict = {}
    for site in facts.calls if selections else ():
        by_function.setdefault(id(site.ctx.function), []).append(site)
    for key, points in selections.items():
        if not any(p.kind in _SELECTS_LATER for p in points):
            continue
        function = points[0].site.ctx.function
        if key is not None:
            later += [p for p in points if p.kind in _SELECTS_LATER]
        for node, why, where in _touches_in(facts, function, by_function):
            if in_one_gpu_actor(facts, where):
                continue  # Ray shows the actor only its own GPUs: cuda:0 is one of them
            before = [p for p in points if _before(p.site.node, node) and not exclusive(p.site.ctx, where)]
            if any(p.kind != "imported" for p in before):
                continue  # the GPU is already chosen
            after = [p for p in points if p.kind in _SELECTS_LATER and _before(node, p.site.node)
                     and not exclusive(p.site.ctx, where)]
            report = _touch_report(node, why, [p.local for p in before], after, own)
            if report is not None and id(node) not in seen:
                seen.add(id(node))
                yield replace(report, needs=actor_needs(facts, node, report.needs, gpus=True))
    later.sort(key=lambda p: (p.site.node.lineno, p.site.node.col_offset))
    at_load = [p for p in selections.get(None, ()) if p.kind != "imported"]
    for site, why in _import_time_touches(facts) if later else ():
        if any(_before(p.site.node, site.node) and not exclusive(p.site.ctx, site.ctx) for p in at_load):
            continue  # a module-level call selected the GPU before this runs
        report = _touch_report(site.node, why, [], later, own)
        if report is not None and id(site.node) not in seen:
            seen.add(id(site.node))
            yield report


_SELECTS_LATER = ("set_device", "local", "imported")


def _imports_before_selection(facts: ScriptFacts, own: bool) -> Iterator[Report]:
    """A top-level import of a project module that may create a CUDA context when imported
    (`EPS = torch.tensor(1e-8).cuda()` in utils/meters.py), before this module selects the GPU: a
    candidate the program decides (does that module touch CUDA at import time?)."""
    if not own and not any(isinstance(stmt, ast.If) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                           for stmt in facts.tree.body):
        return  # a library module runs nothing when it is loaded: its importer is the one to ask
    imports = imports_at_load(facts)
    selections = device_selections(facts) if imports else {}
    if not selections:
        return
    at_load = selections.get(None, [])
    later = sorted((p for key, points in selections.items() if key is not None for p in points
                    if p.kind in _SELECTS_LATER), key=lambda p: (p.site.node.lineno, p.site.node.col_offset))
    for node, module, level, names in imports:
        before = [p for p in at_load if _before(p.site.node, node)]
        if any(p.kind != "imported" for p in before):
            break  # the GPU is already chosen when this and every later import runs
        after = [p for p in at_load if p.kind in _SELECTS_LATER and _before(node, p.site.node)] + later
        label = "." * level + module if module or not names else names[0]
        report = _touch_report(node, f"importing {label}", [p.local for p in before], after, own)
        if report is None:
            continue
        selected = report.needs[1] if report.needs is not None else None
        yield replace(report, needs=("import-touches-cuda", (("module", module), ("level", level), ("names", names),
                                                             ("selected", selected))))


@decider("import-touches-cuda")
def _decide_import_touches_cuda(finding, project, params):
    """Keep an import that runs before the GPU is selected when the imported project module (or one it
    imports at its top level) creates a CUDA context at import time, and the GPU is selected later."""
    found = import_touches_cuda(project.program, finding.path, params["module"], params["level"], params["names"])
    if found is None:
        return None
    path, row, what = found
    if params["selected"] is not None:
        finding = _decide_selected_later(finding, project, dict(params["selected"]))
        if finding is None:
            return None
    note = (path, _row_span(row), f"{short(what, 32)} at import time")
    return replace(finding, related=[*finding.related, note])


def _touches_in(facts: ScriptFacts, function, by_function: dict) -> list:
    """(node, what, context) of each call in `function`'s own body that creates a CUDA context: a
    CUDA call, or a call of this module's function whose body makes one (and selects no GPU).
    `by_function`: id(function) -> the calls of its own body."""
    effects = function_effects(facts)
    found = []
    for site in by_function.get(id(function), ()):
        why = cuda_touch(site, facts)
        if why:
            found.append((site.node, why, site.ctx))
            continue
        helper = local_callee(facts, site) if isinstance(site.node.func, ast.Name) else None
        if helper is None or helper is function or id(helper) in effects and effects[id(helper)].selects_device:
            continue
        inner = next((cuda_touch(s, facts) for s in by_function.get(id(helper), ()) if cuda_touch(s, facts)), None)
        if inner:
            found.append((site.node, f"{site.node.func.id}() (which calls {inner})", site.ctx))
    return found


def _selection_words(point) -> str:
    if point.kind == "set_device":
        return f"torch.cuda.set_device (line {point.site.node.lineno})"
    return f"{point.local}() selects the GPU (line {point.site.node.lineno})"


def _touch_message(why: str, selected: str) -> str:
    return f"{short(why)} runs before {selected}, so every rank puts a CUDA context on cuda:0; select the device first"


def _touch_report(node: ast.AST, why: str, imported_before: list, after: list, own: bool) -> Optional[Report]:
    """The finding for a CUDA touch followed by `after` (selections, in order): reported here when this
    module's code selects the GPU and nothing imported may have done it before; else a candidate."""
    known = next((p for p in after if p.kind != "imported"), None)
    if not after:
        return None
    if known is not None and not imported_before and own:
        return Report(node, _touch_message(why, _selection_words(known)))
    imported_after = tuple((p.local, p.site.node.lineno) for p in after if p.kind == "imported" and
                           (known is None or _before(p.site.node, known.site.node)))
    if known is None and not imported_after:
        return None
    params = (("what", why), ("before", tuple(dict.fromkeys(imported_before))), ("after", imported_after),
              ("known", _selection_words(known) if known is not None else ""), ("own", own))
    return Report(node, _touch_message(why, _selection_words(known or after[0])),
                  needs=("device-selected-later", params))


@decider("device-selected-later")
def _decide_selected_later(finding, project, params):
    """Keep a CUDA touch when a call after it selects the GPU (a project function reaching set_device,
    or this module's own selection), no imported function called before it selects one, and the
    module runs as several processes (its own evidence, or a program of several ranks)."""
    program = project.program

    def selects(local: str, strictly: bool) -> Optional[tuple]:
        found = program.function_called(finding.path, local)
        if found is None:
            return None  # a library's (or a module dslint does not see)
        function = found[1]
        return found if function.set_device_row or (not strictly and function.selects_device) else None

    if any(selects(local, strictly=False) for local in params["before"]):
        return None
    related = []
    if not params["own"]:
        programs = several_rank_programs(project, finding.path)
        if not programs:
            return None
        related += programs[0].related
    words = None
    for local, row in params["after"]:
        found = selects(local, strictly=True)
        if found is not None:
            symbol, function = found
            words = f"{local}() selects the GPU (line {row})"
            related.insert(0, (symbol.path, _row_span(function.set_device_row), f"{local}() calls set_device here"))
            break
    words = words or params["known"]
    if not words:
        return None
    return replace(finding, message=_touch_message(params["what"], words), related=[*finding.related, *related])


def _row_span(row: int) -> Span:
    """A position at the start of a row of another module (its summary keeps rows, not spans)."""
    return Span(Location(row, 1), Location(row, 1))


# -- DSL106 ----------------------------------------------------------------------------------

def _cvd_writes(facts: ScriptFacts) -> Iterator[tuple[ast.AST, Optional[ast.AST], Context]]:
    """(statement or call, value or None, context) for each write of CUDA_VISIBLE_DEVICES
    (assignment, setdefault, update, putenv: facts/values.py's one reader of the environment)."""
    model = semantic_model(facts)
    for access in env_writes(model, CVD):
        where = facts.context_of(access.node)
        if where is None:
            continue
        node = where.parent if isinstance(access.node, ast.Subscript) and isinstance(where.parent, ast.stmt) \
            else access.node
        yield node, access.value if access.kind == "write" else access.default, where


@python_rule("DSL106", "cuda-visible-devices-in-script", severity=Severity.WARNING)
def cuda_visible_devices_in_script(ctx: PythonContext) -> Iterator[Report]:
    """CUDA_VISIBLE_DEVICES set after CUDA started (ignored), or pinned to one GPU in a multi-rank script."""
    facts = ctx.facts
    import_time_inits = _import_time_touches(facts, cuda_runtime_init)
    for node, value, where in _cvd_writes(facts):
        earlier = None
        for site in facts.calls:
            if site.ctx.function is where.function and _before(site.node, node) and not exclusive(site.ctx, where):
                why = cuda_runtime_init(site, facts)
                if why:
                    earlier = (site.node, why)
                    break
        if earlier is None and where.function is not None and import_time_inits:
            earlier = (import_time_inits[0][0].node, import_time_inits[0][1])
        if earlier is not None:
            yield Report(node, f"CUDA_VISIBLE_DEVICES is set after {short(earlier[1], 32)} (line {earlier[0].lineno}) "
                         "started CUDA, so it has no effect; set it in the launch command")
            continue
        device = literal(value)
        if isinstance(device, (str, int)) and str(device).strip().isdigit() \
                and not _conditional(ctx, node) and not where.guards:
            # A helper module shows no ranks of its own: the project phase asks its programs.
            own = ctx.dist.is_multiprocess
            needs = None
            if not own:
                if is_test_module(ctx.path):
                    continue
                unreferenced, reach = _callers_to_find(ctx, where)
                several = (("unreferenced", unreferenced), ("own", False), ("guarded", False), ("reach", reach))
                needs = ("several-ranks", several)
                if where.class_ is None and _main_block_only(ctx, where.function):
                    needs = ("main-block-helper", (*several, ("function", where.function.name)))
            yield Report(node, f"CUDA_VISIBLE_DEVICES={short(str(device).strip(), 8)} gives every rank of this "
                         "multi-process script the same GPU; let the launcher choose the GPUs", needs=needs)



def _main_block_only(ctx: PythonContext, function: Optional[ast.AST]) -> bool:
    """Is `function` a module-level def (undecorated) that its module names only to call it from the
    module's own `if __name__ == "__main__":` block (the data-preparation entry point of a dataset
    module)? Then in this module it runs only when the module itself is the program."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.decorator_list:
        return False
    model = semantic_model(ctx.facts)
    scope = model.scope_of(function)
    defs = scope.bindings.get(function.name, []) if scope.kind == "module" else []
    if len(defs) != 1 or defs[0].node is not function:
        return False
    uses = model.uses_of(defs[0])
    for use in uses:
        call = model.parent_of(use)
        where = ctx.facts.context_of(call) if isinstance(call, ast.Call) and call.func is use else None
        if where is None or where.function is not None or where.class_ is not None or not under_main_guard(where):
            return False
    return bool(uses)


@decider("main-block-helper")
def _decide_main_block_helper(finding, project, params):
    """A function its module calls only from its `__main__` block runs in the module's own program alone,
    unless another module imports or calls it: then the several-ranks decider asks every program."""
    main_block = not project.program.referenced_elsewhere(finding.path, params["function"])
    return _decide_several_ranks(finding, project, {**params, "main_block": main_block})


# -- DSL107 ----------------------------------------------------------------------------------

def _fork_sites(facts: ScriptFacts) -> Iterator[tuple[CallSite, str, ast.AST]]:
    """(call, description, the point where processes are forked) for each fork-based start."""
    for site in facts.calls_to(*LIGHTNING_TRAINERS, *FABRIC):
        name = literal(site.keyword("strategy"))
        if not isinstance(name, str):
            continue
        entry = strategy_entry(name, fabric=site.qualname in FABRIC)
        if entry is None or entry[1].get("start_method") != "fork":
            continue
        point: ast.AST = site.node
        owner = _assigned_to(facts, site)
        if owner:
            later = [s.node for attr in ("fit", "validate", "test", "predict", "launch")
                     for s in facts.method_calls(attr) if s.receiver == owner and s.ctx.function is site.ctx.function]
            if later:
                point = max(later, key=lambda n: (n.lineno, n.col_offset))
        yield site, f'strategy="{name}"', point
    for site in facts.calls_to(START_PROCESSES):
        if literal(site.keyword("start_method")) == "fork":
            yield site, 'start_processes(start_method="fork")', site.node
    for site in facts.calls_to(NOTEBOOK_LAUNCHER):
        yield site, "accelerate.notebook_launcher", site.node


def _assigned_to(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    parent = site.ctx.parent
    if isinstance(parent, ast.Assign) and parent.value is site.node and len(parent.targets) == 1:
        return dotted(parent.targets[0])
    return None


@python_rule("DSL107", "fork-after-cuda", severity=Severity.ERROR)
def fork_after_cuda(ctx: PythonContext) -> Iterator[Report]:
    """Forking processes after the parent initialised CUDA: the children cannot use CUDA."""
    facts = ctx.facts
    for site, what, point in _fork_sites(facts):
        earlier, helpers = None, []
        for other in facts.calls:
            if other.ctx.function is site.ctx.function and _before(other.node, point) and not exclusive(other.ctx, site.ctx):
                why = cuda_init_before_fork(other, facts) or _local_helper_inits_cuda(facts, other)
                if why:
                    earlier = (other.node, why)
                    break
                if other.calls_project_name(facts.imports):
                    helpers.append(other)
        if earlier is None and site.ctx.function is not None:
            touches = _import_time_touches(facts, cuda_init_before_fork)
            if touches:
                earlier = (touches[0][0].node, touches[0][1])
        if earlier is None:
            # (a helper of another module called before the fork may start CUDA: decided once linked)
            if helpers:
                calls = tuple((dotted(h.node.func), h.node.lineno) for h in helpers)
                yield Report(site.node, f"{short(what, 36)} forks after a helper started CUDA, so the children cannot use "
                             "CUDA; keep the parent CUDA-free or use spawn",
                             needs=("callee-inits-cuda", (("calls", calls), ("what", what))))
            continue
        yield Report(site.node, f"{short(what, 36)} forks after {short(earlier[1], 20)} (line {earlier[0].lineno}) "
                     "started CUDA, so the children cannot use CUDA; keep the parent CUDA-free or use spawn",
                     related=[])


def _local_helper_inits_cuda(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    """`probe()` of a module-level function of this module whose own body initialises CUDA."""
    function = facts.functions.get(site.attr) if isinstance(site.node.func, ast.Name) else None
    if function is None:
        return None
    why = next((w for other in facts.calls if other.ctx.function is function
                and (w := cuda_init_before_fork(other, facts))), None)
    return f"{site.attr}() ({why})" if why else None


@decider("callee-inits-cuda")
def _decide_callee_inits_cuda(finding, project, params):
    """Keep the fork when a project function called before it initialises CUDA in its own body."""
    for callee, row in params["calls"]:
        symbol = project.program.symbol(finding.path, callee)
        found = symbol.function.inits_cuda if symbol is not None and symbol.function is not None else None
        if found is not None:
            return replace(finding, message=(
                f"{short(params['what'], 36)} forks after {short(callee, 24)}() (line {row}) started CUDA "
                f"({short(found[0], 24)}, {file_label(symbol.path, 20)}:{found[1]}), so the children cannot use CUDA; "
                "use spawn"))
    return None



# -- DSL108 and the spawner facts ------------------------------------------------------------

def _spawner_sites(facts: ScriptFacts) -> Iterator[tuple[CallSite, str]]:
    for site in facts.calls_to(SPAWN):
        yield site, "torch.multiprocessing.spawn"
    for site in facts.calls_to(START_PROCESSES):
        yield site, "torch.multiprocessing.start_processes"
    for site in facts.calls_to(NOTEBOOK_LAUNCHER):
        yield site, "accelerate.notebook_launcher"
    for site in facts.calls_to(*LIGHTNING_TRAINERS):
        yield site, "lightning.pytorch.Trainer"
    for site in facts.calls_to(*FABRIC):
        yield site, "lightning.fabric.Fabric"


def _strategy_start_method(site: CallSite, facts: ScriptFacts) -> Optional[str]:
    """popen (joins a launched world, else re-runs the script), spawn or fork; None when unknown."""
    strategy = site.keyword("strategy")
    if strategy is None:
        return "popen"
    name = literal(strategy)
    if isinstance(name, str):
        entry = strategy_entry(name, fabric=site.qualname in FABRIC)
        if entry is not None:
            return entry[1].get("start_method", "popen")
        return "popen" if name in ("auto", "deepspeed", "fsdp") else None
    if isinstance(strategy, ast.Call):
        method = literal(next((k.value for k in strategy.keywords if k.arg == "start_method"), None))
        if method is not None:
            return method
        return "popen"
    return None


@summary_extractor("spawners")
def spawners(facts: ScriptFacts) -> list[dict]:
    """Every in-script process starter, as plain data for the launch-side rules.

    `joins_launcher`: True when an outside launcher's ranks make it start nothing (Lightning's
    popen strategies see LOCAL_RANK / SLURM / torchelastic and join), False when it starts
    processes whatever launched the script (mp.spawn, spawn/fork strategies), None if unknown.
    """
    out = []
    for site, kind in _spawner_sites(facts):
        span = facts.lines.span_of_node(site.node)
        record = {"kind": kind, "row": span.start.row, "column": span.start.column,
                  "end_row": span.end.row, "end_column": span.end.column,
                  "function": getattr(site.ctx.function, "name", None),
                  "conditional": any("__main__" not in ast.unparse(g.test) for g, _ in site.ctx.guards)}
        if kind.startswith("torch.multiprocessing"):
            nprocs = literal(site.argument(2, "nprocs"))
            record.update(nprocs=nprocs if isinstance(nprocs, int) else None, joins_launcher=False,
                          start_method=literal(site.keyword("start_method")) or "spawn")
        elif kind == "accelerate.notebook_launcher":
            n = literal(site.argument(2, "num_processes"))
            record.update(nprocs=n if isinstance(n, int) else None, joins_launcher=False, start_method="fork")
        else:
            devices = site.keyword("devices") or site.keyword("gpus")
            strategy = site.keyword("strategy")
            method = _strategy_start_method(site, facts)
            record.update(devices=literal(devices) if devices is not None else None,
                          devices_source=ast.unparse(devices) if devices is not None else None,
                          num_nodes=literal(site.keyword("num_nodes")),
                          strategy=literal(strategy) if literal(strategy) is not None else
                          (ast.unparse(strategy) if strategy is not None else None),
                          start_method=method, multiprocess=trainer_is_multiprocess(site),
                          joins_launcher=None if method is None else method == "popen")
        out.append(record)
    return out


def _needs_outside_launcher(facts: ScriptFacts, spawner: CallSite) -> Optional[tuple[ast.AST, str]]:
    """Something the spawning process itself runs that only works under torchrun/deepspeed."""
    def unconditional(where: Context) -> bool:
        return all("__main__" in ast.unparse(g.test) for g, _ in where.guards)

    for node, where in facts.of_type(ast.Subscript):
        if env_read_key(semantic_model(facts), node) == "LOCAL_RANK" and unconditional(where) and (
                (where.function is spawner.ctx.function and _before(node, spawner.node))
                or (where.at_import_time and not under_main_guard(where))):
            return node, 'reads os.environ["LOCAL_RANK"]'
    for site in facts.calls_to(INIT_PG):
        if unconditional(site.ctx) and site.ctx.function is spawner.ctx.function and _before(site.node, spawner.node):
            return site.node, "calls init_process_group before spawning"
    return None


@python_rule("DSL108", "spawn-under-launcher", severity=Severity.ERROR)
def spawn_under_launcher(ctx: PythonContext) -> Iterator[Report]:
    """The script expects an outside launcher and starts its own processes too: two launchers."""
    facts = ctx.facts
    for site in facts.calls_to(SPAWN) + facts.calls_to(START_PROCESSES):
        if not all("__main__" in ast.unparse(g.test) for g, _ in site.ctx.guards):
            continue
        found = _needs_outside_launcher(facts, site)
        if found is None or spawn_starts_ranks(facts, site) is False:
            continue  # CPU workers (they fill a queue, start no group, use no GPU) are not ranks
        node, what = found
        yield Report(site.node, f"this script {what} (line {node.lineno}) as under a launcher, yet spawns its own "
                     "processes; drop the spawn or the launcher")
