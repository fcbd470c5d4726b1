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
A module-level function nothing names is reached by nobody (a package's re-export is no call), and
so is a method nothing names of a class no library calls into (a module that looks attributes up by
a computed name, `getattr(hook, name)`, names every method whose name it passes to a call as a string): every ancestor a class of the project
or `object` (no library base to call it by name, nor `getattr(self, name)` in the class), or
`torch.nn.Module`, which calls only its own methods (`forward`, `train`, `state_dict`, ...).

`rank_zero_callers`: a module-level function whose every read, in its module and its importers, is a
call under a rank-0 gate (`References.rank_zero`) runs in rank 0 alone, whoever runs its callers; a
call in the `__main__` block of a module whose own program is one process counts as rank 0's too
(`References.main_only`: an export tool `torch2onnx.py` that a trainer's rank-0 callback also calls).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..sources.names import is_library, last_name
from .conditions import RANK_TEXT_WORDS, only_rank_zero, under_main_guard
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
# torch.nn.Module's own methods (torch 2.13, `dir(torch.nn.Module)`): the only ones it calls by name on a
# subclass, so an override of one of these (or of a private `_name`) may run with nothing in the project naming it.
_MODULE_METHODS = frozenset((
    "add_module apply bfloat16 buffers call_super_init children compile cpu cuda double dump_patches eval "
    "extra_repr float forward get_buffer get_extra_state get_parameter get_submodule half ipu load_state_dict "
    "modules mtia named_buffers named_children named_modules named_parameters parameters register_backward_hook "
    "register_buffer register_forward_hook register_forward_pre_hook register_full_backward_hook "
    "register_full_backward_pre_hook register_load_state_dict_post_hook register_load_state_dict_pre_hook "
    "register_module register_parameter register_state_dict_post_hook register_state_dict_pre_hook requires_grad_ "
    "set_extra_state set_submodule share_memory state_dict to to_empty train type xpu zero_grad").split())
_TORCH_MODULES = ("torch.nn.Module", "torch.nn.modules.module.Module")


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
    torch_modules: frozenset = frozenset()  # top-level classes with `torch.nn.Module` among their bases
    dispatching: frozenset = frozenset()  # top-level classes calling `getattr(self, <not a literal>)`
    # names the module calls (`f(...)`, `module.f(...)`) and reads in no other way, each call one that
    # only rank 0 makes (under `if args.process_index == 0:`; conditions.only_rank_zero)
    rank_zero: frozenset = frozenset()
    # top-level functions of the module it reads only as the callee of calls in its own `if __name__ ==
    # "__main__":` block: they run there only in the program the module itself starts
    main_only: frozenset = frozenset()


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
    dispatching = set()
    by_name = False
    for site in facts.method_calls("getattr") + facts.method_calls("hasattr"):  # `getattr(obj, "name")` reads `name`
        args = site.node.args
        if site.receiver is not None or len(args) < 2:
            continue
        if isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
            names.setdefault(args[1].value, set()).add(scope(site.ctx.function))
            continue
        by_name = True
        if site.ctx.class_ is not None and isinstance(args[0], Name) and args[0].id in self_names:
            dispatching.add(site.ctx.class_.name)
    if by_name:  # `call_hook("before_run")` dispatching through `getattr(hook, name)`: a name passed is a read
        for site in facts.calls:
            for arg in (*site.node.args, *(k.value for k in site.node.keywords)):
                if type(arg) is ast.Constant and type(arg.value) is str and arg.value.isidentifier():
                    names.setdefault(arg.value, set()).add(scope(site.ctx.function))
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
    decorated, bases, classmethods, torch_modules = set(), {}, set(), set()
    for stmt in facts.tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.decorator_list:
            decorated.add(stmt.name)
        if isinstance(stmt, ast.ClassDef):
            bases[stmt.name] = tuple(last_name(b) for b in stmt.bases if last_name(b))
            if any(facts.resolve(b) in _TORCH_MODULES for b in stmt.bases):
                torch_modules.add(stmt.name)
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
                      frozenset(classmethods), dynamic, frozenset(torch_modules), frozenset(dispatching),
                      _rank_zero_callees(facts, libraries), _main_block_callees(facts))


def _rank_zero_callees(facts: ScriptFacts, libraries: set) -> frozenset:
    """The names of project functions the module reads only as the callee of calls that rank 0 alone
    makes (`References.rank_zero`): a call by a bare name or through an imported module
    (`ckpt.merge(...)`), under a rank-0 gate; any other read of the word (passed on, an attribute
    of something else) leaves the name out."""
    imported = {*facts.imports.names, *facts.imports.relative}  # (`from .load_model import merge`)
    if not imported:
        return frozenset()
    text = facts.text.lower()
    if not any(word in text for word in RANK_TEXT_WORDS):
        return frozenset()  # (no test of the rank, no gate)
    gated: dict = {}
    for site in facts.calls:
        func = site.node.func
        if type(func) is ast.Name:  # a project function imported by name
            name = func.id
            if name in libraries or name not in imported:
                continue
        elif type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id in imported:
            name = func.attr  # `ckpt.merge(...)` through an imported project module
            if func.value.id in libraries:
                continue
        else:
            continue
        if not (site.ctx.guards or site.ctx.function is not None):
            continue  # (module-level code outside any `if` runs in every rank)
        gated.setdefault(name, []).append(site)
    gated = {name: sites for name, sites in gated.items() if all(only_rank_zero(facts, s.node) for s in sites)}
    if not gated:
        return frozenset()
    # Every read of the name is one of these calls when the word occurs in the module only there and
    # in its imports (a comment, a string or an unrelated attribute of the same name leaves it out).
    lines = facts.text.splitlines()
    imports = [" ".join(lines[n.lineno - 1:n.end_lineno]) for n, _ in facts.of_type(ast.ImportFrom)]

    def occurrences(name: str, text: str) -> int:
        return len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text))

    return frozenset(name for name, sites in gated.items()
                     if occurrences(name, facts.text) - sum(occurrences(name, i) for i in imports) == len(sites))


def _main_block_callees(facts: ScriptFacts) -> frozenset:
    """The module's top-level functions whose every mention, but their `def`, is a call by name at the
    top of its `if __name__ == "__main__":` block (`References.main_only`)."""
    if "__main__" not in facts.text:
        return frozenset()
    sites: dict = {}
    for site in facts.calls:
        func = site.node.func
        if type(func) is ast.Name and func.id in facts.functions and site.ctx.function is None \
                and site.ctx.class_ is None and under_main_guard(site.ctx):
            sites.setdefault(func.id, []).append(site)
    return frozenset(name for name, found in sites.items()
                     if len(re.findall(rf"(?<![\w.]){re.escape(name)}(?!\w)", facts.text)) == len(found) + 1)


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
        self._closed: dict = {}
        self._near: dict = {}

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
        parents = self.parents()
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

    def library_calls(self, klass: str) -> Optional[frozenset]:
        """The method names a library may call on `klass` by name: none when every ancestor is a class of
        the project (or `object`) and none dispatches on `getattr(self, name)`, torch.nn.Module's own
        when it is the one library base; None when another library class is an ancestor (any name)."""
        if klass in self._closed:
            return self._closed[klass]
        self._closed[klass] = None  # (a cycle of bases)
        parents = self.parents()
        found: Optional[frozenset] = frozenset()
        kinds = [refs for refs in self.refs.values() if refs is not None and klass in refs.bases]
        if not kinds or any(klass in refs.dispatching or klass in refs.decorated for refs in kinds):
            found = None
        for base in parents.get(klass, ()) if found is not None else ():
            if base == "object":
                continue
            if base == "Module" and any(klass in refs.torch_modules for refs in kinds):
                found = found | _MODULE_METHODS
                continue
            inherited = self.library_calls(base) if base in parents else None
            if inherited is None:
                found = None
                break
            found = found | inherited
        self._closed[klass] = found
        return found

    def parents(self) -> dict:
        parents = self._parents
        if parents is None:
            parents = self._parents = {}
            for refs in self.refs.values():
                for klass, bases in (refs.bases.items() if refs is not None else ()):
                    parents.setdefault(klass, set()).update(bases)
        return parents

    def near(self, path: str) -> Optional[set]:
        """The modules that run in a process with `path` (an instance of its class lives only there); None
        when no entry point's program holds it."""
        if path not in self._near:
            self._near[path] = self.program.program_modules(path) if self.program.programs_of(path) else None
        return self._near[path]

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
        work, out, dead = [(norm_path(path), scope)], set(), False
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
            dead = dead or callers is _NOBODY
            work += callers
        # (no module-level code starts it: no evidence of who runs it, unless a chain ends in a method
        # nothing can call)
        return out if out or dead else None

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
        if method.startswith("__") or scope in refs.decorated:
            return None
        called = self.library_calls(klass)
        if called is None and _HOOKS.search(method) or called is not None and (
                method in called or method.startswith("_") and called):
            return None
        lineage = self.related(klass)
        # (an instance of a class no library calls into is used only by modules of its own programs)
        near = self.near(path) if called is not None else None
        callers = [r for r in self.readers(method) if r != (path, scope) and (near is None or r[0] in near)]
        callers += [r for r in self.readers(f"self.{method}") if r != (path, scope)
                    and r[1].partition(".")[0] in lineage]
        return callers or (_NOBODY if called is not None else None)


_NOBODY: list = []  # a method no library calls and nothing in the project names (`_Reach._callers`)


def reaching_entries(project: "Project", path: str, scope: Optional[str]) -> Optional[set]:
    """The entry points (normalised paths) whose programs may run the function `scope` of `path`
    (`References` keys: "f", "Cls.method"); None when unknown (see the module docstring)."""
    if not scope:
        return None
    cache, reach = _cache_and_index(project)
    key = (norm_path(path), scope)
    if key not in cache:
        modules = reach.modules(path, scope)
        cache[key] = None if modules is None else {e for m in modules for e in reach.program.programs_of(m)}
    return cache[key]


def called_by_nothing(project: "Project", path: str, scope: Optional[str]) -> bool:
    """Does no code reach the function `scope` of `path`: every chain of its readers ends in a method
    nothing can call (not merely: no entry point's program runs it)?"""
    if not scope:
        return False
    cache, reach = _cache_and_index(project)
    key = ("dead", norm_path(path), scope)
    if key not in cache:
        cache[key] = reach.modules(path, scope) == set()
    return cache[key]


def rank_zero_callers(project: "Project", path: str, scope: Optional[str]) -> bool:
    """Does only rank 0 run the module-level function `scope` of `path`: the project calls it, and
    every module that may read it (its own and its importers, all with a summary) reads it only in
    calls that rank 0 alone makes (`if training_args.process_index == 0: save_merged_model(...)` in a
    runner)? Its callers' own callers do not matter: whoever runs them, the gate lets rank 0 through."""
    if not scope or "." in scope:
        return False
    cache, reach = _cache_and_index(project)
    key = ("rank0", norm_path(path), scope)
    if key not in cache:
        modules = reach.importers(norm_path(path), scope)
        refs = [reach.refs.get(m) for m in modules]
        own = reach.refs.get(norm_path(path))
        readers = {m for m, _ in reach.readers(scope) if m in modules}
        cache[key] = own is not None and scope not in own.decorated and bool(readers) and \
            all(r is not None for r in refs) and all(scope in reach.refs[m].rank_zero or (
                scope in reach.refs[m].main_only and not _runs_several_ranks(project, m)) for m in readers)
    return cache[key]


def _runs_several_ranks(project: "Project", entry: str) -> bool:
    """Does the program that `entry` itself starts run as several processes?"""
    from .program_ranks import several_rank_programs

    return any(norm_path(p.entry) == entry for p in several_rank_programs(project, entry))


def _cache_and_index(project: "Project") -> tuple:
    """(the project's memo of answers, its `_Reach` index), built once per project."""
    cache = project.__dict__.setdefault("_reach", {})
    if "index" not in cache:
        cache["index"] = _Reach(project)
    return cache, cache["index"]


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
