"""Project classes that run as Ray actors through the function form of `ray.remote`.

`@ray.remote(num_gpus=1)` on a class is read where the class is written (conditions.in_one_gpu_actor).
A plain class can also become an actor where the program uses it: `ray.remote(num_gpus=1)(Learner)`
(often in a driver module that imports it), or `ray.remote(Learner)` started with
`.options(num_gpus=1).remote()`. Ray then starts each instance in its own worker process and sets
that process's CUDA_VISIBLE_DEVICES to the GPUs it grants, so `cuda:0` in the class's methods is
the actor's own GPU, even when the actors form one NCCL group.

Each module's summary lists the classes it wraps so (`RayWrap`: the name as the module spells it,
whose one binding is an import or a class of the module itself), and the project classes it
constructs directly (`Learner(...)`); the project phase (`ray_actor_class`) resolves those names
to the exact class of the finding's module. A class that some module also constructs directly
runs outside Ray too, and is no actor class.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..sources.names import is_library
from .bindings import semantic_model
from .program import norm_path
from .script import ScriptFacts, literal
from .summary import summary_extractor

if TYPE_CHECKING:
    from .setup import Project


@dataclass(frozen=True)
class RayWrap:
    """One `ray.remote(...)(Cls)` / `ray.remote(Cls)` of a module."""

    local: str  # the class as the module names it: "Learner", "learner.Learner"
    gpus: bool  # Ray grants it GPUs: num_gpus in ray.remote(...), or in every .options(...) that starts it


@dataclass(frozen=True)
class RayActorUses:
    """`summary.extra["ray_actor_classes"]`."""

    wraps: tuple = ()  # RayWrap
    constructed: frozenset = frozenset()  # capitalised names the module calls directly: "Learner", "m.Learner"


def _grants_gpus(call: ast.Call) -> bool:
    """`num_gpus=` given, and not a literal 0 (no GPU: nothing is made visible)."""
    return any(k.arg == "num_gpus" and literal(k.value) != 0 for k in call.keywords)


def _class_name(model, expr: ast.AST) -> Optional[str]:
    """The dotted name of `expr` when its root has exactly one binding reaching it, an import or a
    top-level class of this module (a plain Name only); else None."""
    parts = []
    node = expr
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    found = model.reaching(node.id, node)
    if len(found) != 1:
        return None
    binding = found[0]
    imported = binding.kind in ("import", "from-import")
    if not imported and not (binding.kind == "class" and not parts and binding.node in model.tree.body):
        return None
    return ".".join([node.id, *reversed(parts)])


def _started_with_gpus(facts: ScriptFacts, model, actor: ast.Call) -> bool:
    """Every start of the actor class `actor` builds that this module shows goes through
    `.options(num_gpus=...)`, and there is one: `ray.remote(C).options(num_gpus=1).remote()`, or
    `A = ray.remote(C)` then `A.options(num_gpus=1).remote()`."""
    holders = [actor]
    parent = model.parent_of(actor)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        holders += [s.node.func.value for attr in ("options", "remote") for s in facts.method_calls(attr)
                    if isinstance(s.node.func, ast.Attribute) and isinstance(s.node.func.value, ast.Name)
                    and s.node.func.value.id == name and model.assigned_value(s.node.func.value) is actor]
    starts = []
    for holder in holders:
        user = model.parent_of(holder)
        call = model.parent_of(user) if isinstance(user, ast.Attribute) else None
        if isinstance(call, ast.Call) and call.func is user and user.attr in ("options", "remote"):
            starts.append((user.attr, call))
    return bool(starts) and all(attr == "options" and _grants_gpus(call) for attr, call in starts)


@summary_extractor("ray_actor_classes")
def ray_actor_classes(facts: ScriptFacts) -> Optional[RayActorUses]:
    """The classes this module wraps with the function form of `ray.remote`, and the capitalised
    names it calls directly, a library's left out; None when it has neither."""
    sites = facts.calls_to("ray.remote")
    model = semantic_model(facts) if sites else None
    wraps = []
    for site in sites:
        call = site.node
        if not call.args and call.keywords:  # ray.remote(num_gpus=1)(Cls)
            outer = model.parent_of(call)
            if not (isinstance(outer, ast.Call) and outer.func is call and len(outer.args) == 1 and not outer.keywords):
                continue  # (a decorator, or applied to nothing we read)
            actor, target, gpus = outer, outer.args[0], _grants_gpus(call)
        elif len(call.args) == 1 and not call.keywords:  # ray.remote(Cls)
            actor, target, gpus = call, call.args[0], False
        else:
            continue
        name = _class_name(model, target)
        if name is None:
            continue
        wraps.append(RayWrap(name, gpus or _started_with_gpus(facts, model, actor)))
    constructed = set()
    for site in facts.calls:
        func = site.node.func
        if site.attr[:1].isupper() and isinstance(func, (ast.Name, ast.Attribute)) and not (
                site.qualname and is_library(site.qualname)):
            constructed.add(_dotted(func))
    constructed.discard(None)
    if not wraps and not constructed:
        return None
    return RayActorUses(tuple(wraps), frozenset(constructed))


def _dotted(expr: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return ".".join([expr.id, *reversed(parts)]) if isinstance(expr, ast.Name) else None


def ray_actor_class(project: "Project", path: str, klass: str, gpus: bool) -> Optional[str]:
    """The display path of a module that makes the top-level class `klass` of module `path` a Ray
    actor class with the function form of `ray.remote` (granting it GPUs, when `gpus`), when no
    module of the project constructs that class directly; else None."""
    constructed, wrapped = _actor_index(project)
    key = (norm_path(path), klass)
    if key in constructed:
        return None  # (it also runs as a plain object in some process)
    found = wrapped.get(key)
    if found is None or (gpus and found[1] is None):
        return None
    return found[1] if gpus else found[0]


def _actor_index(project: "Project") -> tuple:
    """(the (module, class) pairs some module constructs directly, (module, class) -> (a wrapping
    module, a wrapping module that grants GPUs or None)), over the whole project, built once."""
    cached = project.__dict__.get("_ray_actor_index")
    if cached is not None:
        return cached
    program = project.program

    def resolved(where: str, local: str) -> Optional[tuple]:
        symbol = program.symbol(where, local)
        return (norm_path(symbol.path), symbol.name) if symbol is not None and symbol.klass is not None else None

    constructed: set = set()
    wrapped: dict = {}
    for where, summary in project.scripts.items():
        uses = summary.extra.get("ray_actor_classes")
        if uses is None:
            continue
        constructed.update(found for local in uses.constructed for found in [resolved(where, local)] if found)
        for wrap in uses.wraps:
            found = resolved(where, wrap.local)
            if found is not None:
                first, granting = wrapped.get(found, (where, None))
                wrapped[found] = (first, granting or (where if wrap.gpus else None))
    cached = project.__dict__["_ray_actor_index"] = (constructed, wrapped)
    return cached


def actor_needs(facts: ScriptFacts, node: ast.AST, needs: Optional[tuple], gpus: bool) -> Optional[tuple]:
    """The `needs` (see rules.registry.Report) of a finding at `node`: in a method of a top-level class
    of this module, the project phase first asks whether the program makes that class a Ray actor
    (`ray_actor_class`; granting it GPUs, when `gpus`), then `needs`."""
    model = semantic_model(facts)
    klass = model.class_of(node)
    if klass is None or klass not in facts.tree.body:
        return needs
    return ("ray-actor-class", (("klass", klass.name), ("gpus", gpus), ("then", needs)))
