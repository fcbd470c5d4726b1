"""What touches CUDA and which GPU: context-creating calls, runtime queries, fixed device indices.

One copy of this knowledge for every rule: `cuda_touch` (a call that creates a CUDA context on
the current device, cuda:0 until `set_device` runs), `cuda_runtime_init` (also calls that only
initialise the runtime), `fixed_cuda_device` (an expression that names one GPU for every rank).
"""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from .bindings import semantic_model
from .script import CallSite, ScriptFacts, literal

DDP = "torch.nn.parallel.DistributedDataParallel"
FSDP = ("torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel")
DEEPSPEED_INITIALIZE = "deepspeed.initialize"
SET_DEVICE_ATTRS = ("set_device", "set_device_index")

# Calls that create a CUDA context on the current device (cuda:0 until set_device runs): each runs
# torch.cuda._lazy_init (directly, or through current_device() for its default device). Not
# empty_cache (torch/cuda/memory.py: a no-op `if is_initialized()` fails) nor Event() (c10's
# CUDAEvent creates the event on its first record()).
_CONTEXT_CALLS = {
    "torch.cuda.synchronize", "torch.cuda.mem_get_info", "torch.cuda.Stream", "torch.cuda.current_stream",
    "torch.cuda.init", "torch.cuda.default_stream", "torch.cuda.set_per_process_memory_fraction",
    "torch.cuda.reset_peak_memory_stats",
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
    if site.attr == "cuda" and site.qualname is None and site.receiver != "torch" and not site.node.args and all(
            k.arg in ("non_blocking", "memory_format") for k in site.node.keywords):
        return ".cuda()"
    if site.attr == "to" and site.qualname is None:
        arg = site.node.args[0] if site.node.args else site.keyword("device")
        if is_plain_cuda(arg, facts):
            return '.to("cuda")'
    if q.startswith("torch.") and not q.startswith("torch.cuda.") and q != "torch.device" and is_plain_cuda(site.keyword("device"), facts):
        return f'{q.rsplit(".", 1)[-1]}(device="cuda")'
    return None


# Runtime queries after which a forked child cannot use CUDA (measured, torch 2.11 on an H200:
# bench/fork_after_cuda_gpu.py, bench/RESULTS.md): get_device_properties, get_device_name,
# get_device_capability and current_device run torch.cuda._lazy_init; is_available() counts the devices
# through the CUDA runtime, which poisons the fork, unless PYTORCH_NVML_BASED_CUDA_CHECK=1 makes it ask NVML.
# Not device_count() (NVML first) nor memory_allocated() (an empty answer while CUDA is uninitialised).
_LAZY_INIT_QUERIES = {"torch.cuda.get_device_name", "torch.cuda.get_device_properties",
                      "torch.cuda.get_device_capability", "torch.cuda.current_device"}
_RUNTIME_COUNT = "torch.cuda.is_available"


def cuda_init_before_fork(site: CallSite, facts: ScriptFacts) -> Optional[str]:
    """How this call initialises CUDA in a way a forked child cannot undo, or None."""
    if site.qualname in _LAZY_INIT_QUERIES or (
            site.qualname == _RUNTIME_COUNT and "PYTORCH_NVML_BASED_CUDA_CHECK" not in facts.text):
        return f"{site.qualname.rsplit('.', 1)[-1]}()"
    return cuda_touch(site, facts)


def cuda_runtime_init(site: CallSite, facts: ScriptFacts) -> Optional[str]:
    """How this call initialises CUDA (context or just the runtime), or None."""
    if site.qualname in _RUNTIME_CALLS:
        return f"{site.qualname}()"
    return cuda_touch(site, facts)


_CUDA_INDEX = re.compile(r"^cuda:(\d+)$")


def fixed_cuda_device(expr: Optional[ast.AST], *, integers: bool = False, model=None) -> Optional[str]:
    """`"cuda:1"`, `torch.device("cuda:0")`, `torch.device("cuda", 0)`, `torch.device(type="cuda",
    index=0)` (and a bare `0` where `integers`, as `.to(0)` takes it) → "cuda:N"; else None.

    With a semantic model, a name is followed to the value it was assigned (`dev = "cuda:0"`).
    """
    if expr is None:
        return None
    if model is not None:
        expr = model.value_of(expr)
    value = literal(expr)
    if isinstance(value, str):
        match = _CUDA_INDEX.match(value.strip())
        return f"cuda:{match.group(1)}" if match else None
    if isinstance(value, int) and not isinstance(value, bool):
        return f"cuda:{value}" if integers else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Attribute, ast.Name)) and (
            (expr.func.attr if isinstance(expr.func, ast.Attribute) else expr.func.id) == "device"):
        args = list(expr.args)
        kinds = {k.arg: k.value for k in expr.keywords}
        kind = literal(args[0]) if args else literal(kinds.get("type"))
        index = literal(args[1]) if len(args) > 1 else literal(kinds.get("index"))
        if kind == "cuda" and isinstance(index, int) and not isinstance(index, bool):
            return f"cuda:{index}"
        if len(args) == 1 and not kinds:
            return fixed_cuda_device(args[0])
    return None


# Calls that select the calling process's GPU, or make a framework do it (the DeepSpeed engine
# calls set_device(local_rank); Accelerate, Fabric and the Lightning Trainer place each rank).
DEVICE_SELECTORS = frozenset((
    "torch.cuda.set_device", "torch.accelerator.set_device_index", "torch.cuda.device",
    "deepspeed.initialize", "deepspeed.init_inference", "accelerate.Accelerator",
    "lightning.fabric.Fabric", "lightning.pytorch.Trainer",
))


def _is_set_device(site: CallSite, facts: Optional[ScriptFacts] = None) -> bool:
    """`torch.cuda.set_device(x)`, `torch.accelerator.set_device_index(x)`, `get_accelerator().set_device(x)`,
    and (given the module's facts) `backend.set_device(x)` on a name bound to a device namespace."""
    if site.attr not in SET_DEVICE_ATTRS:
        return False
    if site.qualname in ("torch.cuda.set_device", "torch.accelerator.set_device_index"):
        return True
    if site.qualname is not None or not isinstance(site.node.func, ast.Attribute):
        return False
    if site.receiver is None:
        return True
    receiver = site.node.func.value
    return facts is not None and isinstance(receiver, ast.Name) and device_namespace(facts, receiver)


# The per-backend modules `torch.cuda`, `torch.xpu`, ...: each has set_device.
_NAMESPACE_GETTERS = frozenset(("torch.get_device_module", "torch._utils._get_device_module"))
_BACKENDS = frozenset(("cuda", "xpu", "npu", "mlu", "hpu", "musa", "mtia"))


def device_namespace(facts: ScriptFacts, expr: ast.AST, depth: int = 2) -> bool:
    """Is `expr` a torch device namespace: `torch.cuda`, `getattr(torch, device.type)`,
    `torch.get_device_module(...)`, through names, or a call of this module's function whose every
    return is one (`get_torch_device_namespace()`)?"""
    model = semantic_model(facts)
    value = model.value_of(expr)
    if isinstance(value, (ast.Attribute, ast.Name)):
        name = model.resolve(value) or ""
        return name.startswith("torch.") and name[len("torch."):] in _BACKENDS
    if not isinstance(value, ast.Call):
        return False
    callee = model.resolve(value.func)
    if callee in _NAMESPACE_GETTERS:
        return True
    if isinstance(value.func, ast.Name) and value.func.id == "getattr" and callee is None and len(value.args) == 2:
        return model.resolve(value.args[0]) == "torch"
    binding = model.binding_of(value.func) if isinstance(value.func, ast.Name) else None
    if depth <= 0 or binding is None or binding.kind != "def":
        return False
    returns = [n.value for n in _own_nodes(binding.node) if isinstance(n, ast.Return)]
    return bool(returns) and all(r is not None and device_namespace(facts, r, depth - 1) for r in returns)


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not of the functions and classes defined in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


# A CUDA device mesh sets the device itself (LOCAL_RANK, else rank % GPUs per host) when CUDA is not
# yet initialised: torch/distributed/device_mesh.py, DeviceMesh._setup_world_group_and_device.
MESH_BUILDERS = frozenset(("torch.distributed.device_mesh.init_device_mesh", "torch.distributed.device_mesh.DeviceMesh"))


def selects_device(site: CallSite, facts: Optional[ScriptFacts] = None) -> bool:
    """Does this call select the calling process's GPU (or make a framework do it)? Given the
    module's facts, a set_device through a name bound to a device namespace counts too."""
    if site.qualname in MESH_BUILDERS:
        return literal(site.argument(0, "device_type")) == "cuda"
    return site.qualname in DEVICE_SELECTORS or _is_set_device(site, facts)


def set_device_sites(facts: ScriptFacts) -> list[CallSite]:
    """The set_device calls of a module (see `_is_set_device`)."""
    return [site for attr in SET_DEVICE_ATTRS for site in facts.method_calls(attr) if _is_set_device(site, facts)]
