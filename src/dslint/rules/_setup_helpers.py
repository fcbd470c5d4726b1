"""Helpers for the placement (DSL1xx) and wrapping (DSL3xx) rules: what touches CUDA, which
names hold a DDP wrapper or a DeepSpeed engine, and following a value a short way."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..facts.script import CallSite, Context, ScriptFacts
from ..sources.names import dotted
from ._helpers import literal

DDP = "torch.nn.parallel.DistributedDataParallel"
FSDP = ("torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel")
DEEPSPEED_INITIALIZE = "deepspeed.initialize"
SET_DEVICE_ATTRS = ("set_device", "set_device_index")

# Calls that create a CUDA context on the current device (cuda:0 until set_device runs).
_CONTEXT_CALLS = {
    "torch.cuda.synchronize", "torch.cuda.mem_get_info", "torch.cuda.Stream", "torch.cuda.Event",
    "torch.cuda.empty_cache", "torch.cuda.current_stream", "torch.cuda.init", "torch.cuda.default_stream",
    "torch.cuda.set_per_process_memory_fraction", "torch.cuda.reset_peak_memory_stats",
}
# Calls that initialise the CUDA runtime (the visible device list is fixed from then on).
_RUNTIME_CALLS = {"torch.cuda.device_count", "torch.cuda.is_available", "torch.cuda.get_device_name",
                  "torch.cuda.get_device_properties", "torch.cuda.get_device_capability", "torch.cuda.current_device"}


def is_plain_cuda(expr: Optional[ast.AST], facts: ScriptFacts) -> bool:
    """`"cuda"` or `torch.device("cuda")`: the current device, whatever it is."""
    if expr is None:
        return False
    value = literal(expr)
    if isinstance(value, str):
        return value.strip() == "cuda"
    if isinstance(expr, ast.Call) and facts.resolve(expr.func) == "torch.device" and len(expr.args) == 1 and not expr.keywords:
        return literal(expr.args[0]) == "cuda"
    return False


def cuda_touch(site: CallSite, facts: ScriptFacts) -> Optional[str]:
    """How this call creates a CUDA context on the current device, or None."""
    q = site.qualname or ""
    if q in _CONTEXT_CALLS and not site.node.args and not site.node.keywords:
        return f"{q}()"
    if site.attr == "cuda" and site.qualname is None and site.receiver != "torch" and not site.node.args and not site.node.keywords:
        return ".cuda()"
    if site.attr == "to" and site.qualname is None:
        arg = site.node.args[0] if site.node.args else site.keyword("device")
        if is_plain_cuda(arg, facts):
            return '.to("cuda")'
    if q.startswith("torch.") and not q.startswith("torch.cuda.") and q != "torch.device" and is_plain_cuda(site.keyword("device"), facts):
        return f'{q.rsplit(".", 1)[-1]}(device="cuda")'
    return None


def cuda_runtime_init(site: CallSite, facts: ScriptFacts) -> Optional[str]:
    """How this call initialises CUDA (context or just the runtime), or None."""
    if site.qualname in _RUNTIME_CALLS:
        return f"{site.qualname}()"
    return cuda_touch(site, facts)


def statement_of(facts: ScriptFacts, node: ast.AST) -> Optional[ast.stmt]:
    """The statement that holds `node` (the node itself when it is a statement)."""
    while node is not None and not isinstance(node, ast.stmt):
        ctx = facts.context_of(node)
        node = ctx.parent if ctx else None
    return node


def under_main_guard(ctx: Context) -> bool:
    """Inside `if __name__ == "__main__":`."""
    return any("__main__" in ast.unparse(guard.test) and in_body for guard, in_body in ctx.guards)


def in_no_grad(facts: ScriptFacts, ctx: Context) -> bool:
    """Inside `with torch.no_grad()/inference_mode()`, or a function decorated with them."""
    for with_node in ctx.withs:
        for item in with_node.items:
            expr = item.context_expr
            name = facts.resolve(expr.func if isinstance(expr, ast.Call) else expr) or ""
            if name.endswith(("no_grad", "inference_mode")):
                return True
    func = ctx.function
    for dec in getattr(func, "decorator_list", ()):
        name = facts.resolve(dec.func if isinstance(dec, ast.Call) else dec) or ""
        if name.endswith(("no_grad", "inference_mode")):
            return True
    return False


def single_assignment(facts: ScriptFacts, name: str, function) -> Optional[ast.expr]:
    """The value of `name` when it is assigned exactly once in that scope."""
    found = facts.assignments_to(name, function)
    if len(found) == 1:
        return found[0].value
    return None


def names_bound_to(facts: ScriptFacts, *qualnames: str) -> dict[str, list]:
    """Names (and `self.x`) assigned the result of one of these calls: name -> [Assignment]."""
    out: dict[str, list] = {}
    for a in facts.assignments:
        value = a.value
        if isinstance(value, ast.Call) and facts.resolve(value.func) in qualnames and isinstance(a.node, (ast.Assign, ast.AnnAssign)):
            targets = a.node.targets if isinstance(a.node, ast.Assign) else [a.node.target]
            if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
                out.setdefault(a.name, []).append(a)
    return out


def unpacked(facts: ScriptFacts, qualname: str, index: int) -> dict[str, tuple]:
    """Names bound to element `index` of a tuple-returning call: `engine, opt, _, _ = deepspeed.initialize(...)`."""
    out: dict[str, tuple] = {}
    for node, ctx in facts.of_type(ast.Assign):
        value = node.value
        if not (isinstance(value, ast.Call) and facts.resolve(value.func) == qualname):
            continue
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) > index:
                name = dotted(target.elts[index])
                if name and name != "_":
                    out[name] = (node, ctx)
    return out


def loads_of(facts: ScriptFacts, name: str, function) -> Iterator[ast.AST]:
    """Every read of a dotted `name` (`llm`, `self.model`) in `function` (the module when None)."""
    for node in ast.walk(function if function is not None else facts.tree):
        if isinstance(node, ast.Name):
            if node.id == name and isinstance(node.ctx, ast.Load):
                yield node
        elif isinstance(node, ast.Attribute) and "." in name and isinstance(node.ctx, ast.Load) and dotted(node) == name:
            yield node


def parent_map(root: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents
