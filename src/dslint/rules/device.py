"""DSL1xx: device and rank placement."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator

from ..fixes import append_keyword, codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from ..facts.conditions import in_one_gpu_actor, mentions_rank, only_rank_zero
from ..facts.cuda import fixed_cuda_device
from ..facts.bindings import semantic_model
from ..facts.link import single_process_launches
from ..facts.values import class_field_default, env_writes, instance_field
from ..facts.program import is_test_module
from ..facts.script import literal
from .context import PythonContext
from .registry import Report, decider, python_rule

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
    one-GPU Ray actor, or run by rank 0 alone (whose GPU is cuda:0 on the first node)."""
    where = ctx.facts.context_of(node)
    if where is None:
        return False
    if isinstance(where.parent, ast.IfExp) or in_one_gpu_actor(ctx.facts, where) or only_rank_zero(ctx.facts, node):
        return True
    for guard, _ in where.guards:
        text = ast.unparse(guard.test).lower()
        if mentions_rank(ctx.facts, guard.test) or any(w in text for w in ("world", "distributed", "ddp", "n_gpu", "num_gpus", "single")):
            return True
    return False


@python_rule("DSL101", "hard-coded-device", severity=Severity.ERROR)
def hard_coded_device(ctx: PythonContext) -> Iterator[Report]:
    """A fixed GPU index in a script whose processes each need their own GPU."""
    dist = ctx.dist
    if not dist.is_multiprocess:
        return
    if _cvd_set_per_rank(ctx):
        return
    why = dist.multiprocess_evidence[0].what
    facts = ctx.facts
    for site in facts.calls_to("torch.cuda.set_device"):
        index = literal(site.argument(0, "device"))
        if isinstance(index, int) or (isinstance(index, str) and _CUDA_INDEX.match(index)):
            if not _conditional(ctx, site.node):
                yield Report(site.node, f"every rank selects GPU {index}: the script {why}, so all its processes "
                             "share one GPU; use the local rank (int(os.environ['LOCAL_RANK']))")
    yield from _devices_from_class_defaults(ctx, why)
    if dist.framework_places_devices:
        return  # the framework moves models and batches; a literal there is its business
    for site in facts.calls_to("torch.nn.parallel.DistributedDataParallel"):
        ids = site.keyword("device_ids")
        value = literal(ids)
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) for v in value):
            if not _conditional(ctx, site.node):
                yield Report(ids, f"device_ids={value!r} puts every rank's replica on the same GPU; "
                             "use device_ids=[local_rank]")
    for site in facts.method_calls("cuda"):
        if site.node.args and isinstance(literal(site.node.args[0]), int) and not _conditional(ctx, site.node):
            yield Report(site.node, f".cuda({literal(site.node.args[0])}) places every rank's tensors on one GPU; "
                         "call torch.cuda.set_device(local_rank) once and use .cuda()")
    reported: set = set()
    for site in facts.calls_to("torch.device"):
        device = fixed_cuda_device(site.node)
        if device and not _read_only_query(ctx, site.node) and not _conditional(ctx, site.node):
            reported.add(id(site.node))
            yield Report(site.node, f"{device} is the same GPU on every rank (the script {why}); "
                         "use torch.device('cuda', local_rank)")
    for site in facts.method_calls("to") + [s for s in facts.calls if s.qualname and s.qualname.startswith("torch.")
                                           and s.qualname != "torch.device" and not s.qualname.startswith("torch.cuda.")]:
        if site.attr == "to":
            if site.qualname is not None:
                continue
            arg = site.node.args[0] if site.node.args else site.keyword("device")
        else:
            arg = site.keyword("device")
        if arg is None or id(arg) in reported:
            continue
        device = fixed_cuda_device(arg, integers=site.attr == "to")
        if device and not _conditional(ctx, site.node):
            yield Report(arg, f"'{device}' is the same GPU on every rank (the script {why}); "
                         "use torch.device('cuda', local_rank)")


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


def _devices_from_class_defaults(ctx: PythonContext, why: str) -> Iterator[Report]:
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
                yield Report(value, f"{klass}.{found.field} defaults to '{device}', the same GPU on every rank (the "
                             f"script {why}); derive it from the local rank")
        else:
            yield Report(value, f"{klass}.{found.field} is the same GPU on every rank (the script {why}); derive it "
                         "from the local rank", needs=("class-default-is-fixed-device",
                                                       (("klass", klass), ("field", found.field))))


@decider("class-default-is-fixed-device")
def _decide_class_default(finding, project, params):
    """Keep the finding when the class (another module's) defaults the field to one fixed GPU."""
    symbol = project.program.symbol(finding.path, params["klass"])
    default = symbol.klass.field_defaults.get(params["field"]) if symbol is not None and symbol.klass else None
    device = fixed_cuda_device(ast.Constant(default)) if isinstance(default, (str, int)) and not isinstance(default, bool) else None
    if device is None or not isinstance(default, str):
        return None
    return replace(finding, message=f"{params['klass']}.{params['field']} defaults to '{device}' ({symbol.path}:"
                   f"{symbol.klass.row}), the same GPU on every rank; derive it from the local rank")


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
    if not ctx.dist.is_multiprocess or is_test_module(ctx.path):
        return  # a test file's Fabric(devices=2) test says nothing about its torch.load test
    cpu_saves = _cpu_saves(ctx)
    for site in ctx.facts.calls_to("torch.load"):
        if site.argument(1, "map_location") is not None or site.has_star_kwargs:
            continue
        if any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        if _other_branch_maps(ctx, site) or _loads_what_it_saved_on_cpu(ctx, site, cpu_saves):
            continue
        span = ctx.facts.lines.span_of_node(site.node)
        function = site.ctx.function
        unreferenced = getattr(function, "name", None) if site.ctx.class_ is None and function is not None and \
            not _referenced_here(ctx, function) else None
        yield Report(site.node, "torch.load without map_location puts the checkpoint's tensors on the GPU that saved "
                     "them (cuda:0) in every rank: extra memory on GPU 0 or OOM",
                     fix=make_fix("add-map-location", 'Add map_location="cpu"', Applicability.SAFE,
                                  row=span.start.row, column=span.start.column),
                     needs=("several-ranks", (("unreferenced", unreferenced),)))


def _cpu_saves(ctx: PythonContext) -> set:
    """File-name literals of `torch.save(x.cpu(), ...)` calls: what this module writes from the CPU."""
    names = set()
    for site in ctx.facts.calls_to("torch.save"):
        value = site.argument(0, "obj")
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "cpu":
            path = site.argument(1, "f")
            names |= {n.value for n in ast.walk(path) if isinstance(n, ast.Constant) and isinstance(n.value, str)} \
                if path is not None else set()
    return names


def _loads_what_it_saved_on_cpu(ctx: PythonContext, site, cpu_saves: set) -> bool:
    """`torch.load(os.path.join(d, "feat.pth"))` of a file this module saved as `x.cpu()`: CPU tensors."""
    path = site.argument(0, "f")
    return path is not None and any(isinstance(n, ast.Constant) and n.value in cpu_saves for n in ast.walk(path))


def _referenced_here(ctx: PythonContext, function: ast.AST) -> bool:
    """Is the module-level function named anywhere in its module (called, or passed on), or
    decorated (a decorator may register it: `@app.command`, `@hydra.main`)?"""
    name = function.name
    return bool(function.decorator_list) or any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(ctx.facts.tree))


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
    module, and no other module imports or calls it)."""
    if single_process_launches(project, finding.path):
        return None
    name = params.get("unreferenced")
    if name and not project.program.referenced_elsewhere(finding.path, name):
        return None
    return finding


@codemod_fixer("add-map-location")
def _add_map_location(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or any(a.keyword is not None and a.keyword.value == "map_location" for a in call.args):
        return None
    new_call = append_keyword(call, "map_location", cst.SimpleString('"cpu"'))
    return module.deep_replace(call, new_call)
