"""Which programs run a function: its callers across the project, followed up to module-level code.

A module that a multi-rank trainer imports does not run all its code in that trainer: a method of
a retrieval API class, or a helper only an interactive demo calls, runs in the demo's process
alone. Each module's summary holds where it names things (`References`: every attribute it reads,
every imported or module-level name it reads, each with the top-level function, method or module
level that reads it). The project phase follows the readers of a function up to module-level code
(`reaching_entries`): the programs whose modules' top-level code starts such a chain may run it.

The answer is None (unknown: anything may run it) when the chain passes something a static reader
cannot follow: a decorated class or function (a registry may build it from a config string), a dunder
or a framework hook (the library calls it by name: `before_run`, `training_step`, `load_state_dict`),
a method or a class that nothing names (a library may call it), a module without a summary, or a
program that builds objects from strings (`hydra.utils.instantiate`, `importlib.import_module`).
A module-level function nothing names is reached by nobody (a package's re-export is no call).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..sources.names import is_library, last_name
from .program import norm_path
from .script import ScriptFacts
from .summary import summary_extractor

if TYPE_CHECKING:
    from .setup import Project

# Methods a framework calls by name on the project's subclasses (PyTorch, Lightning, mmengine and
# detectron2 hooks, Hugging Face Trainer and model methods, checkpointers): callers the project
# does not show.
_HOOKS = re.compile(
    r"^(on_|before_|after_|configure_|_load|_save|resume|init_|setup|teardown|prepare_)"
    r"|(_step|_hook|_dataloader|_state_dict|_checkpoint|_epoch|_iter|_batch)$"
    r"|^(forward|backward|step|train|eval|fit|run|predict|test|validate|evaluate|compute_loss|state_dict|"
    r"load|save|build|call|apply|extra_repr|reset_parameters|collate|log|from_pretrained|from_config)$")
_STRING_RESOLVERS = ("hydra.utils.instantiate", "hydra.utils.call", "hydra.utils.get_class", "hydra.utils.get_method",
                     "hydra.utils.get_object", "importlib.import_module", "pydoc.locate", "__import__")
_MAX_STEPS = 300


@dataclass(frozen=True)
class References:
    """Where a module names things (`summary.extra["references"]`)."""

    # name -> scope keys that read it: "" module level (and class bodies), "f", "Cls.method"; an
    # attribute of `self` or `cls` as "self.name"
    names: dict
    decorated: frozenset  # top-level functions and classes, and "Cls.m" methods, with a decorator
    bases: dict  # top-level class -> the last names of its bases
    classmethods: frozenset  # "Cls.m" of classmethods and staticmethods (they may construct Cls)
    dynamic: bool  # builds objects from strings (hydra.utils.instantiate, importlib.import_module)


@summary_extractor("references")
def references(facts: ScriptFacts) -> References:
    """The module's References (one pass over its calls, displays and assignments)."""
    top = {id(node): key for key, node in facts.functions.items()}
    nested = {}
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
        for node, ctx in facts.of_type(kind):
            if id(node) not in top and ctx.function is not None:
                nested[id(node)] = ctx.function
    keys: dict = {}

    def scope(function) -> str:
        if function is None:
            return ""
        found = keys.get(id(function))
        if found is None:
            current, steps = function, 0
            while id(current) not in top and id(current) in nested and steps < 50:
                current, steps = nested[id(current)], steps + 1
            found = keys[id(function)] = top.get(id(current), "?")
        return found

    names: dict = {}
    Name, Attribute = ast.Name, ast.Attribute
    # (`torch.load`, `os.path.join`: a library's names, never a project function's)
    libraries = {local for local, qualname in facts.imports.names.items() if is_library(qualname)}
    held = []
    self_names = ("self", "cls")
    for site in facts.calls:
        call, receiver = site.node, site.receiver
        if receiver is None:  # `f()`, `super().m()`, `build()[0].m()`
            found = [site.attr] if type(call.func) is Name or type(call.func) is Attribute else []
        elif receiver in self_names and site.ctx.class_ is not None:
            found = ["self." + site.attr]
        elif receiver[0].isupper() and "." not in receiver:  # `Finder.list_models()`
            found = [site.attr, receiver]
        else:
            found = [] if receiver.partition(".")[0] in libraries else [site.attr]
        for arg in call.args:
            if type(arg) is Name or type(arg) is Attribute:
                found.append(arg)
        for keyword in call.keywords:
            if type(keyword.value) is Name or type(keyword.value) is Attribute:
                found.append(keyword.value)
        if found:
            held.append((found, site.ctx))
    # A function or class is read, but as a callee, as an argument, an element of a display or an
    # assigned or returned value (`fn=self.answer`, `(Finder, Ranker)`, `return build`) only rarely;
    # a property is read anywhere, and is left unknown (References.decorated).
    for kind in (ast.Tuple, ast.List, ast.Set):
        for node, ctx in facts.of_type(kind):
            found = [n for n in node.elts if type(n) is Name or type(n) is Attribute]
            if found:
                held.append((found, ctx))
    for node, ctx in facts.of_type(ast.Dict):
        found = [n for n in node.values if type(n) is Name or type(n) is Attribute]
        if found:
            held.append((found, ctx))
    for kind in (ast.Assign, ast.AnnAssign, ast.Return):
        for node, ctx in facts.of_type(kind):
            if type(node.value) is Name or type(node.value) is Attribute:
                held.append(([node.value], ctx))
    for found, ctx in held:
        where = scope(ctx.function)
        for item in found:
            if type(item) is Name:
                item = item.id
            elif type(item) is Attribute:
                value = item.value
                if type(value) is Name and value.id in ("self", "cls") and ctx.class_ is not None:
                    item = f"self.{item.attr}"
                elif type(value) is Name and value.id in libraries:
                    continue
                else:
                    item = item.attr
            names.setdefault(item, set()).add(where)
    decorated, bases, classmethods = set(), {}, set()
    for stmt in facts.tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.decorator_list:
            decorated.add(stmt.name)
        if isinstance(stmt, ast.ClassDef):
            bases[stmt.name] = tuple(last_name(b) for b in stmt.bases if last_name(b))
            for item in stmt.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) or not item.decorator_list:
                    continue
                kinds = {last_name(d) for d in item.decorator_list}
                if kinds <= {"classmethod", "staticmethod"}:
                    classmethods.add(f"{stmt.name}.{item.name}")
                else:  # a property, a registered or wrapped method: read or called in ways not seen
                    decorated.add(f"{stmt.name}.{item.name}")
    dynamic = bool(facts.calls_to(*_STRING_RESOLVERS))
    return References({k: tuple(sorted(v)) for k, v in names.items()}, frozenset(decorated), bases,
                      frozenset(classmethods), dynamic)


def scope_key(function: Optional[ast.AST], klass: Optional[ast.ClassDef], facts: ScriptFacts) -> Optional[str]:
    """The key `References` gives code directly in `function` (a top-level def or a method of a
    top-level class); None for module-level code or a nested function."""
    if function is None:
        return None
    key = f"{klass.name}.{function.name}" if klass is not None else getattr(function, "name", None)
    return key if key is not None and facts.functions.get(key) is function else None


class _Reach:
    """The readers of the project's functions, followed to module-level code (one per project)."""

    def __init__(self, project: "Project"):
        self.program = project.program
        self.refs: dict = {}
        for path, summary in project.scripts.items():
            found = summary.extra.get("references") if summary is not None else None
            self.refs[norm_path(path)] = found
        self._readers: dict = {}
        self._parents: Optional[dict] = None

    def readers(self, name: str) -> list:
        """(module, scope) of every place the project reads `name` (an attribute or a name)."""
        found = self._readers.get(name)
        if found is None:
            found = self._readers[name] = [(path, s) for path, refs in self.refs.items() if refs is not None
                                           for s in refs.names.get(name, ())]
        return found

    def related(self, name: str) -> set:
        """The class names of `name`'s lineage (by name, across the project): its bases and its
        subclasses, whose `self.m` may run its method `m`."""
        parents = self._parents
        if parents is None:
            parents = self._parents = {}
            for refs in self.refs.values():
                for klass, bases in (refs.bases.items() if refs is not None else ()):
                    parents.setdefault(klass, set()).update(bases)
        found, work = {name}, [name]
        while work:  # ancestors
            for base in parents.get(work.pop(), ()):
                if base not in found:
                    found.add(base)
                    work.append(base)
        down, work = {name}, [name]
        while work:  # descendants
            current = work.pop()
            for klass, bases in parents.items():
                if current in bases and klass not in down:
                    down.add(klass)
                    work.append(klass)
        return found | down

    def importers(self, path: str, name: str) -> set:
        """Modules that may read the module-level `name` of `path`: itself, those importing `name`
        (from it or from a package that re-exports it) and those importing the module."""
        program = self.program
        named = {other for other, exports in program.modules.items()
                 if any(imported == name for ref in exports.imports for imported, _ in ref.names)}
        sources = named | {path}
        return sources | {other for other in program.modules if program.imports_of(other) & sources}

    def subclasses(self, name: str) -> list:
        return [(path, klass) for path, refs in self.refs.items() if refs is not None
                for klass, bases in refs.bases.items() if name in bases]

    def modules(self, path: str, scope: str) -> Optional[set]:
        """The modules whose module-level code may run `scope` of `path`; None when unknown."""
        seen: set = set()
        work, out = [(norm_path(path), scope)], set()
        while work:
            path, scope = work.pop()
            if (path, scope) in seen:
                continue
            seen.add((path, scope))
            if len(seen) > _MAX_STEPS:
                return None
            if scope == "":
                out.add(path)
                continue
            refs = self.refs.get(path)
            if refs is None or scope == "?":
                return None
            callers = self._callers(path, scope, refs)
            if callers is None:
                return None
            work += callers
        return out or None  # (no module-level code starts it: no evidence of who runs it)

    def _callers(self, path: str, scope: str, refs: References) -> Optional[list]:
        klass, _, method = scope.rpartition(".")
        if not klass:  # a module-level function: nobody naming it is nobody calling it
            if scope in refs.decorated:
                return None
            modules = self.importers(path, scope)
            return [r for r in self.readers(scope) if r != (path, scope) and r[0] in modules]
        if method == "__init__":  # built where the class (or a subclass) is named, or by a classmethod
            if klass in refs.decorated:
                return None
            modules = self.importers(path, klass)
            callers = [r for r in self.readers(klass) if r != (path, scope) and r[0] in modules]
            callers += [(p, f"{sub}.__init__") for p, sub in self.subclasses(klass)]
            callers += [(path, m) for m in refs.classmethods if m.startswith(klass + ".")]
            return callers or None
        if method.startswith("__") or _HOOKS.search(method) or scope in refs.decorated:
            return None
        lineage = self.related(klass)
        callers = [r for r in self.readers(method) if r != (path, scope)]
        callers += [r for r in self.readers(f"self.{method}") if r != (path, scope)
                    and r[1].partition(".")[0] in lineage]
        return callers or None


def reaching_entries(project: "Project", path: str, scope: Optional[str]) -> Optional[set]:
    """The entry points (normalised paths) whose programs may run the function `scope` of `path`
    (`References` keys: "f", "Cls.method"); None when unknown (see the module docstring)."""
    if not scope:
        return None
    cache = project.__dict__.setdefault("_reach", {})
    if "index" not in cache:
        cache["index"] = _Reach(project)
    reach = cache["index"]
    key = (norm_path(path), scope)
    if key not in cache:
        modules = reach.modules(path, scope)
        cache[key] = None if modules is None else {e for m in modules for e in reach.program.programs_of(m)}
    return cache[key]


def builds_from_strings(project: "Project", entry: str) -> bool:
    """Does a module of the program `entry` build objects from strings (a Hydra `_target_`,
    `importlib.import_module`)? Then any class or function may run in it, named or not."""
    cache = project.__dict__.setdefault("_reach", {})
    key = ("dynamic", norm_path(entry))
    if key not in cache:
        scripts = {norm_path(p): s for p, s in project.scripts.items()}
        found = [scripts.get(m) for m in project.program.closure(entry)]
        cache[key] = any(s is None or s.extra.get("references") is None or s.extra["references"].dynamic
                         for s in found)
    return cache[key]
