"""Does the function an `mp.spawn` / `start_processes` starts make ranks of its processes?

A spawned process is a rank when its function (or a function of this module it calls) starts or
joins a process group, selects or uses a GPU, wraps a model in DDP/FSDP, or builds a framework
that does (a DeepSpeed engine, an Accelerator, a Lightning Trainer). Processes that only fill a
queue, decode data or compute on the CPU are workers, not ranks: spawning them under torchrun
starts no second world.

`spawn_starts_ranks` answers True (evidence of a rank), False (the function resolves, and nothing
it runs can make a rank) or None (it cannot be told: the target is another module's function, a
parameter, a lambda; or the code calls another module's function or a value it cannot follow).
Methods called on values (`queue.put(x)`) are not followed: what a value's method does depends on
what was handed in, and only `.cuda()` / `.to(<not the CPU>)` on it counts as GPU use.
"""
from __future__ import annotations

import ast
import builtins
from typing import Optional

from ..sources.names import is_library
from .bindings import semantic_model
from .cuda import DEVICE_SELECTORS
from .distributed import HF_TRAINERS
from .script import CallSite, ScriptFacts, enclosing_functions, literal
from .summary import summary_extractor

SPAWNS = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes")
# Qualified-name prefixes whose use makes the process a rank (or a GPU user).
_RANK_PREFIXES = ("torch.distributed", "torch.cuda", "torch.nn.parallel", "torch.accelerator", "deepspeed",
                  "accelerate", "lightning", "pytorch_lightning", "horovod", "megatron", "colossalai")
# Builtins that run code the walk cannot see.
_OPAQUE_BUILTINS = frozenset(("getattr", "eval", "exec", "__import__", "globals", "vars"))
_CPU = ("cpu",)


def spawn_target(facts: ScriptFacts, site: CallSite) -> Optional[ast.AST]:
    """The def of this module a spawn call starts (`fn`, `self._worker`, `functools.partial(fn, ...)`)."""
    target = site.argument(0, "fn")
    if isinstance(target, ast.Call) and facts.callee_name(target) == "functools.partial" and target.args:
        target = target.args[0]
    return _def_of(facts, target, site.ctx.class_)


def spawn_starts_ranks(facts: ScriptFacts, site: CallSite) -> Optional[bool]:
    """True: the spawned function makes a rank; False: it provably does not; None: unknown."""
    target = spawn_target(facts, site)
    if target is None or _stub(target):
        return None  # (a stub stands for code not shown: it proves nothing)
    return _Walk(facts).run(target)


def _stub(function: ast.AST) -> bool:
    """A body of only `pass`, `...` and a docstring."""
    return all(isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
               for stmt in function.body)


def rankless_spawn_rows(facts: ScriptFacts) -> list[tuple[int, int]]:
    """(row, column) of each spawn call of the module whose function provably makes no rank."""
    sites = facts.calls_to(*SPAWNS)
    if not sites:
        return []
    return facts.derived("rankless_spawn_rows", lambda f: [
        (span.start.row, span.start.column) for span in
        (f.lines.span_of_node(s.node) for s in sites if spawn_starts_ranks(f, s) is False)])


summary_extractor("rankless_spawns")(rankless_spawn_rows)


def rankless_spawn(project, path: str, span) -> bool:
    """Is the spawn call at `span` of module `path` (a checked file) one whose function makes no rank?"""
    summary = project.scripts.get(path)
    rows = summary.extra.get("rankless_spawns", ()) if summary is not None else ()
    return (span.start.row, span.start.column) in {tuple(r) for r in rows}


def _def_of(facts: ScriptFacts, expr: Optional[ast.AST], class_: Optional[ast.ClassDef]) -> Optional[ast.AST]:
    if isinstance(expr, ast.Name):
        binding = semantic_model(facts).binding_of(expr)
        if binding is not None and binding.kind == "def":
            return binding.node
        return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self" \
            and class_ is not None:
        return facts.functions.get(f"{class_.name}.{expr.attr}")
    return None


class _Walk:
    """The functions a spawned function runs in this module, looked through for rank evidence."""

    def __init__(self, facts: ScriptFacts):
        self.facts = facts
        self.model = semantic_model(facts)
        self.sites = {id(s.node): s for s in facts.calls}
        self.unknown = False

    def run(self, target: ast.AST) -> Optional[bool]:
        todo, seen = [target], set()
        while todo:
            function = todo.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            class_ = next((c for c in self.facts.classes.values() if function in c.body), None)
            for node in ast.walk(function):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                        "cuda" in node.value or node.value == "nccl"):
                    return True
                if isinstance(node, ast.Attribute) and self._rank_name(self.facts.resolve(node)):
                    return True
                if isinstance(node, ast.Call):
                    found = self._call(node, class_, todo)
                    if found:
                        return True
        return None if self.unknown else False

    @staticmethod
    def _rank_name(qualname: Optional[str]) -> bool:
        if not qualname:
            return False
        return qualname in DEVICE_SELECTORS or qualname in HF_TRAINERS or any(
            qualname == p or qualname.startswith(p + ".") for p in _RANK_PREFIXES)

    def _call(self, node: ast.Call, class_: Optional[ast.ClassDef], todo: list) -> bool:
        """True on rank evidence; queues this module's functions it runs; marks what it cannot follow."""
        site = self.sites.get(id(node))
        func = node.func
        qualname = site.qualname if site is not None else self.facts.callee_name(node)
        if qualname:
            if self._rank_name(qualname):
                return True
            if not is_library(qualname):
                self.unknown = True  # another module of the project
            elif qualname == "torch.device" and not self._is_cpu(node.args[0] if node.args else None):
                self.unknown = True
            elif _keyword(node, "device") is not None and not self._is_cpu(_keyword(node, "device")):
                self.unknown = True  # `torch.zeros(n, device=dev)`
            return False
        if isinstance(func, ast.Name):
            binding = self.model.binding_of(func)
            if binding is None:
                if func.id not in vars(builtins) or func.id in _OPAQUE_BUILTINS:
                    self.unknown = True
            elif binding.kind == "def":
                todo.append(binding.node)
            elif binding.kind == "class":
                todo.extend(n for n in binding.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
                if binding.node.bases:
                    self.unknown = True  # inherited methods (a project base class) are not followed
            else:
                self.unknown = True  # a parameter or a value: a function handed in
            return False
        if isinstance(func, ast.Attribute):
            if func.attr == "cuda":
                return True
            if func.attr == "to" and not self._is_cpu(node.args[0] if node.args else _keyword(node, "device"),
                                                      dtype_ok=True):
                self.unknown = True
            if isinstance(func.value, ast.Name) and func.value.id == "self" and class_ is not None:
                method = self.facts.functions.get(f"{class_.name}.{func.attr}")
                if method is not None:
                    todo.append(method)
                else:
                    self.unknown = True
            return False
        self.unknown = True  # `handlers[k](x)`, `make()()`
        return False

    def _is_cpu(self, expr: Optional[ast.AST], dtype_ok: bool = False) -> bool:
        if expr is None:
            return dtype_ok
        expr = self.model.value_of(expr)
        if literal(expr) in _CPU:
            return True
        qualname = self.facts.resolve(expr)
        if dtype_ok and qualname and qualname.startswith("torch.") and qualname != "torch.device":
            return True  # `.to(torch.float32)`
        if isinstance(expr, ast.Call) and self.facts.callee_name(expr) == "torch.device" and expr.args:
            return literal(expr.args[0]) in _CPU
        return False


def _keyword(node: ast.Call, name: str) -> Optional[ast.AST]:
    return next((k.value for k in node.keywords if k.arg == name), None)


def outside_spawned_code(facts: ScriptFacts, function: Optional[ast.AST]) -> bool:
    """Is every piece of the module's multi-process evidence an `mp.spawn` of a function of this module
    (or inside what such a function reaches), and does `function` lie outside what the spawned functions
    reach through this module's calls? Then `function` runs in the process that spawns (or in a
    single-process tool that imports the module), not in the ranks: the module's own spawn is no evidence
    about it (RecBole's quick_start: `run()` spawns `run_recboles`; `load_data_and_model` serves tools)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    reached = facts.derived("spawned_reach", _spawned_reach)
    # (a def nested in a spawned function runs there too)
    return reached is not None and not any(f in reached for f in enclosing_functions(facts, function))


def _spawned_reach(facts: ScriptFacts):
    """The defs of this module that the module's spawned functions reach (by bare-name calls and
    `self.m()`), when all its multi-process evidence is such spawns or lies in what they reach; else None."""
    from .distributed import distributed_facts

    spawns = facts.calls_to(*SPAWNS)
    targets = [spawn_target(facts, site) for site in spawns]
    if not targets or any(t is None for t in targets):
        return None
    reached, work = set(), list(targets)
    while work:
        function = work.pop()
        if function in reached or len(reached) > 200:
            continue
        reached.add(function)
        for node in ast.walk(function):
            where = facts.context_of(node) if isinstance(node, ast.Call) else None
            callee = _def_of(facts, node.func, where.class_) if where is not None else None
            if callee is not None and callee not in reached:
                work.append(callee)
    spawn_nodes = {id(site.node) for site in spawns}
    for evidence in distributed_facts(facts).multiprocess_evidence:
        where = facts.context_of(evidence.node)
        if id(evidence.node) not in spawn_nodes and not any(
                f in reached for f in enclosing_functions(facts, where.function if where is not None else None)):
            return None  # evidence of its own outside the spawned code (a torchrun script)
    return reached
