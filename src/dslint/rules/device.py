"""DSL1xx: device and rank placement."""
from __future__ import annotations

import ast
import re
from typing import Iterator

from ..fixes import append_keyword, codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ._helpers import is_test_file, literal, mentions_rank
from .context import PythonContext
from .registry import Report, python_rule

_CUDA_INDEX = re.compile(r"^cuda:\d+$")


def _cvd_set_per_rank(ctx: PythonContext) -> bool:
    """Scripts that pin CUDA_VISIBLE_DEVICES per rank legitimately use cuda:0 afterwards."""
    for node, _ in ctx.facts.of_type(ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and literal(target.slice) == "CUDA_VISIBLE_DEVICES":
                if mentions_rank(node.value) or not isinstance(node.value, ast.Constant):
                    return True
    return False


def _conditional(ctx: PythonContext, node: ast.AST) -> bool:
    """Inside `x if single_process else y`, or under an `if` about rank/world size/distributed."""
    where = ctx.facts.context_of(node)
    if where is None:
        return False
    if isinstance(where.parent, ast.IfExp):
        return True
    for guard, _ in where.guards:
        text = ast.unparse(guard.test).lower()
        if mentions_rank(guard.test) or any(w in text for w in ("world", "distributed", "ddp", "n_gpu", "num_gpus", "single")):
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
    for site in facts.calls_to("torch.device") + facts.method_calls("to"):
        if site.qualname not in (None, "torch.device") and site.attr == "to":
            continue
        arg = site.node.args[0] if site.node.args else site.keyword("device")
        value = literal(arg)
        if isinstance(value, str) and _CUDA_INDEX.match(value.strip()):
            if not _conditional(ctx, site.node):
                yield Report(arg, f"'{value}' is the same GPU on every rank (the script {why}); "
                             "use torch.device('cuda', local_rank)")


@python_rule("DSL102", "torch-load-without-map-location", severity=Severity.WARNING, fix=Applicability.SAFE)
def torch_load_without_map_location(ctx: PythonContext) -> Iterator[Report]:
    """torch.load restores tensors onto the device they were saved from: every rank onto cuda:0."""
    if not ctx.dist.is_multiprocess or is_test_file(ctx.path):
        return  # a test file's Fabric(devices=2) test says nothing about its torch.load test
    for site in ctx.facts.calls_to("torch.load"):
        if site.argument(1, "map_location") is not None or site.has_star_kwargs:
            continue
        if any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        if _other_branch_maps(ctx, site):
            continue
        span = ctx.facts.lines.span_of_node(site.node)
        yield Report(site.node, "torch.load without map_location puts the checkpoint's tensors on the GPU that saved them "
                     "(cuda:0) in every rank: extra memory on GPU 0 or OOM",
                     fix=make_fix("add-map-location", 'Add map_location="cpu"', Applicability.SAFE,
                                  row=span.start.row, column=span.start.column))


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


@codemod_fixer("add-map-location")
def _add_map_location(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or any(a.keyword is not None and a.keyword.value == "map_location" for a in call.args):
        return None
    new_call = append_keyword(call, "map_location", cst.SimpleString('"cpu"'))
    return module.deep_replace(call, new_call)
