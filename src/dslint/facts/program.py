"""The program, not the file: modules linked by their imports, entry points, and queries across them.

Built once per check in the project phase, from the modules' plain summaries
(`module_summary.ModuleExports`); it never reads an `ast`. Imports resolve the way Python
would find the file: relative imports from the importing package, absolute ones first beside
the importing script (`python tools/train.py` puts `tools/` on `sys.path`), then from any
folder of the project where the dotted path exists (a package root). A name that resolves to
no project file is a library's: the program layer knows nothing about it and says so (None).
"""
from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from dataclasses import dataclass
from typing import Optional

from .module_summary import ClassSummary, FunctionSummary, ModuleExports


def is_test_module(path: str) -> bool:
    """pytest files: their multi-process evidence belongs to single tests, not to one program."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    name = parts[-1] if parts else ""
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or "tests" in parts[:-1]


def norm_path(path: str) -> str:
    """A display path in one spelling (forward slashes, no leading ./) for comparisons."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return posixpath.normpath(path)


@dataclass(frozen=True)
class Symbol:
    """A project function or class found through an import."""

    path: str  # display path of the module that defines it
    name: str
    function: Optional[FunctionSummary] = None
    klass: Optional[ClassSummary] = None


class ProgramIndex:
    """The project's modules, their import graph and the programs (entry point + what it reaches)."""

    def __init__(self, modules: dict[str, ModuleExports], launched: Optional[set] = None):
        self.display = {norm_path(p): p for p in modules}
        self.modules = {norm_path(p): m for p, m in modules.items()}
        self.launched = {norm_path(p) for p in (launched or ())}
        self._by_suffix: dict[str, list[str]] = {}
        for path in self.modules:
            stem = path[:-3] if path.endswith(".py") else path
            if stem.endswith("/__init__"):
                stem = stem[: -len("/__init__")]
            parts = stem.split("/")
            for i in range(len(parts)):
                self._by_suffix.setdefault(".".join(parts[i:]), []).append(path)
        self._graph: Optional[dict[str, set]] = None
        self._closures: dict[str, frozenset] = {}
        self._programs: Optional[dict[str, list]] = None  # module -> the entry points that reach it
        # The first name of every dotted module path the project holds: an absolute import
        # starting with anything else (torch, numpy...) is a library's, found without a lookup.
        self._heads = {suffix.split(".", 1)[0] for suffix in self._by_suffix}
        self._found: dict[tuple, Optional[str]] = {}
        self._lineages: Optional[dict[tuple, list]] = None  # (module, class) -> lineages holding it (lineages_through)

    # -- imports ---------------------------------------------------------------------------
    def exported_constant(self, importer: str, local: str, table: str, depth: int = 0,
                          exports: Optional[ModuleExports] = None) -> Optional[tuple]:
        """(defining module, name, value) of the entry of `table` ("value_constants", "config_constants",
        "keyword_dicts") that the name `local` of `importer` was imported as (`from config import
        DEVICE`), followed through packages that re-export it (`from .config import DEVICE` in an
        `__init__.py`), at most 3 hops; None when it is no such constant of a project module. `local` may
        end in "[]", an entry of a table of configs (config_dicts.TABLE_ENTRY)."""
        exports = exports if exports is not None else self.modules.get(importer)
        if exports is None or depth > 3:
            return None
        local, entry = (local[:-2], local[-2:]) if local.endswith("[]") else (local, "")  # (config_dicts.TABLE_ENTRY)
        for ref in exports.imports:
            name = next((name for name, bound in ref.names if bound == local), None)
            target = self.module_file(importer, ref.module, ref.level) if name else None
            found = self.modules.get(target) if target is not None else None
            if found is None:
                continue
            value = getattr(found, table).get(name + entry)
            if value is not None:
                return target, name, value
            return self.exported_constant(target, name + entry, table, depth + 1)
        return None

    def attribute_module(self, importer: str, head: str) -> Optional[str]:
        """The project module a name of `importer` binds by importing it: `import settings as S`,
        `import conf` (head "conf"), `from sft import settings as S`; None when it binds no module."""
        exports = self.modules.get(norm_path(importer))
        for ref in exports.imports if exports is not None else ():
            if not ref.names and ref.local == head:  # (`import a.b` binds a; `import a.b as c` binds a.b)
                return self.module_file(importer, ref.module if head != ref.module.split(".")[0] else head, ref.level)
            name = next((name for name, bound in ref.names if bound == head), None)
            if name is not None:
                return self.module_file(importer, f"{ref.module}.{name}" if ref.module else name, ref.level)
        return None

    def module_constant(self, importer: str, local: str, table: str,
                        exports: Optional[ModuleExports] = None) -> Optional[tuple]:
        """exported_constant for `X` (`from conf import X`), and for `M.X` of a module `M` the importer
        imports (attribute_module): (defining module, name, value) or None."""
        head, _, attr = local.partition(".")
        if not attr:
            return self.exported_constant(importer, local, table, exports=exports)
        target = self.attribute_module(importer, head) if "." not in attr else None
        module = self.modules.get(target) if target is not None else None
        value = getattr(module, table).get(attr) if module is not None else None
        return (target, attr, value) if value is not None else None

    def module_file(self, importer: str, module: str, level: int = 0) -> Optional[str]:
        """The project file an import names, or None (a library, or not found)."""
        if not level and module.split(".", 1)[0] not in self._heads:
            return None
        importer = norm_path(importer)
        key = (posixpath.dirname(importer), module, level)
        if key not in self._found:
            self._found[key] = self._module_file(importer, module, level)
        return self._found[key]

    def _module_file(self, importer: str, module: str, level: int) -> Optional[str]:
        folder = posixpath.dirname(importer)
        if level:
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            base = posixpath.join(folder, *module.split(".")) if module else folder
            return self._file_at(base)
        if not module:
            return None
        beside = self._file_at(posixpath.join(folder, *module.split(".")))
        if beside is not None:
            return beside
        # Any folder may be a package root (namespace packages need no __init__.py).
        exact = self._by_suffix.get(module, [])
        if len(exact) == 1:
            return exact[0]
        if len(exact) > 1:  # several package roots hold it: the deepest root above the importer, if any
            above = [(len(root), p) for p in exact for root in [self._root_of(p, module)]
                     if not root or folder == root or folder.startswith(root + "/")]
            above.sort(reverse=True)
            if above and (len(above) == 1 or above[0][0] != above[1][0]):
                return above[0][1]
        return None

    @staticmethod
    def _root_of(path: str, module: str) -> str:
        stem = path[:-3]
        if stem.endswith("/__init__"):
            stem = stem[: -len("/__init__")]
        return stem[: len(stem) - len(module.replace(".", "/"))].rstrip("/")

    def _file_at(self, base: str) -> Optional[str]:
        base = posixpath.normpath(base)
        for candidate in (base + ".py", posixpath.join(base, "__init__.py")):
            if candidate in self.modules:
                return candidate
        return None

    def imports_of(self, path: str) -> set:
        """The project modules `path` imports (functions' own imports included)."""
        return self.graph().get(norm_path(path), set())

    def graph(self) -> dict[str, set]:
        if self._graph is None:
            graph = {}
            for path, exports in self.modules.items():
                targets = set()
                for ref in exports.imports:
                    target = self.module_file(path, ref.module, ref.level)
                    if target is not None:
                        targets.add(target)
                    for name, _ in ref.names:  # `from pkg import module`
                        sub = self.module_file(path, f"{ref.module}.{name}" if ref.module else name, ref.level)
                        if sub is not None:
                            targets.add(sub)
                targets.discard(path)
                graph[path] = targets
            self._graph = graph
        return self._graph

    # -- programs --------------------------------------------------------------------------
    def entry_points(self) -> list[str]:
        """Modules run as programs: launched by a launch line, or with `if __name__ == "__main__"`."""
        return sorted(p for p, m in self.modules.items() if m.main_guard or p in self.launched)

    def closure(self, entry: str) -> frozenset:
        """The modules a program reaches from its entry point."""
        entry = norm_path(entry)
        found = self._closures.get(entry)
        if found is None:
            seen, todo, graph = {entry}, [entry], self.graph()
            while todo:
                for target in graph.get(todo.pop(), ()):
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
            found = self._closures[entry] = frozenset(seen)
        return found

    def programs_of(self, path: str) -> list[str]:
        """The entry points whose program contains `path` (itself when it is one)."""
        if self._programs is None:  # once per project: asked per finding, it was entry points x modules each time
            programs: dict[str, list] = {}
            for entry in self.entry_points():
                for module in self.closure(entry):
                    programs.setdefault(module, []).append(entry)
            self._programs = programs
        return list(self._programs.get(norm_path(path), ()))

    def program_modules(self, path: str) -> set:
        """Every module that may run in the same process as `path`: the union of its programs,
        or, for a module no entry point reaches, itself and what it imports."""
        programs = self.programs_of(path)
        if not programs:
            return set(self.closure(path))
        out: set = set()
        for entry in programs:
            out |= self.closure(entry)
        return out

    # -- symbols ---------------------------------------------------------------------------
    def symbol(self, importer: str, local: str, depth: int = 0) -> Optional[Symbol]:
        """The project function or class a (dotted) local name of `importer` refers to."""
        importer = norm_path(importer)
        exports = self.modules.get(importer)
        if exports is None or depth > 3:
            return None
        head, _, rest = local.partition(".")
        if not rest:
            found = self._defined(importer, head)
            if found is not None:
                return found
        for ref in exports.imports:
            for name, bound in ref.names:
                if bound != head:
                    continue
                target = self.module_file(importer, ref.module, ref.level)
                if not rest and target is not None:
                    found = self._defined(target, name) or self.symbol(target, name, depth + 1)
                    if found is not None:
                        return found
                sub = self.module_file(importer, f"{ref.module}.{name}" if ref.module else name, ref.level)
                if sub is not None and rest:
                    return self._in_module(sub, rest, depth)
                if target is not None and rest and "." not in rest:  # `DistEnv.from_env` of `from m import DistEnv`
                    found = self._method_of(target, name, rest)
                    if found is not None:
                        return found
            if ref.local == head and rest and not ref.names:
                if ref.local != ref.module.split(".")[0]:  # `import a.b as c`: c.f is a.b's f
                    target = self.module_file(importer, ref.module)
                    if target is not None:
                        return self._in_module(target, rest, depth)
                    continue
                parts = local.split(".")  # `import a.b` binds a: a.b.f is a.b's f
                for cut in range(len(parts) - 1, 0, -1):
                    target = self.module_file(importer, ".".join(parts[:cut]))
                    if target is not None:
                        return self._in_module(target, ".".join(parts[cut:]), depth)
        return None

    def callee(self, importer: str, callee: str) -> Optional[Symbol]:
        """The project function a call spelled `callee` in `importer` runs: a (dotted) imported name,
        or `Cls().method` (module_summary.instance_method: a method called on an instance of an
        imported class); None when it is no project function."""
        klass, _, method = callee.partition("().")
        if not method:
            symbol = self.symbol(importer, callee)
            return symbol if symbol is not None and symbol.function is not None else None
        return self.method_symbol(importer, klass, method)

    def method_symbol(self, importer: str, klass: str, method: str) -> Optional[Symbol]:
        """The method `method` an instance of the project class that `importer` names `klass` runs:
        the nearest definition up a chain of single project bases (a Symbol with the method as
        `function` and its class as `klass`); None when a class on the way has several bases, one
        that is no project class, or defines the method without a summary of it."""
        found = self.symbol(importer, klass)
        for _ in range(4):
            if found is None or found.klass is None:
                return None
            summary = found.klass.methods.get(method)
            if summary is not None:
                return Symbol(found.path, f"{found.name}.{method}", function=summary, klass=found.klass)
            if method in found.klass.dropped_methods or len(found.klass.bases) != 1:
                return None
            found = self.symbol(found.path, found.klass.bases[0])
        return None

    def _in_module(self, path: str, name: str, depth: int) -> Optional[Symbol]:
        if "." in name:
            return None
        return self._defined(path, name) or self.symbol(path, name, depth + 1)

    def _method_of(self, path: str, klass: str, method: str) -> Optional[Symbol]:
        """`Cls.build` of a class `path` defines (a classmethod called through the class)."""
        found = self._defined(path, klass)
        summary = found.klass.methods.get(method) if found is not None and found.klass is not None else None
        return Symbol(found.path, f"{klass}.{method}", function=summary) if summary is not None else None

    def _defined(self, path: str, name: str) -> Optional[Symbol]:
        exports = self.modules.get(path)
        if exports is None:
            return None
        if name in exports.functions:
            return Symbol(self.display.get(path, path), name, function=exports.functions[name])
        if name in exports.classes:
            return Symbol(self.display.get(path, path), name, klass=exports.classes[name])
        return None

    def lineage(self, path: str, name: str, depth: int = 4) -> list[Symbol]:
        """The class `name` of module `path`, then the project classes it derives from, found through
        each module's own imports (a base in another module too), breadth first, each once, at most
        `depth` generations; a base that resolves to no project class is left out."""
        first = self._defined(norm_path(path), name)
        if first is None or first.klass is None:
            return []
        out, level = [first], [first]
        for _ in range(depth - 1):
            parents = []
            for child in level:
                for base in child.klass.bases:
                    found = self.symbol(child.path, base)
                    if found is not None and found.klass is not None and \
                            all((found.path, found.name) != (c.path, c.name) for c in out):
                        out.append(found)
                        parents.append(found)
            level = parents
        return out

    def lineages_through(self, path: str, name: str) -> list[list[Symbol]]:
        """The lineage of every project class built on the class `name` of `path`, that class's own first
        (a mixin's: those of the trainers that derive from it). Indexed once per project, on first use."""
        if self._lineages is None:
            self._lineages = {}
            for module, exports in self.modules.items():
                for klass in exports.classes:
                    lineage = self.lineage(module, klass)
                    for symbol in lineage:
                        self._lineages.setdefault((norm_path(symbol.path), symbol.name), []).append(lineage)
        key = (norm_path(path), name)
        return sorted(self._lineages.get(key, []),  # (the class's own lineage first)
                      key=lambda lineage: (norm_path(lineage[0].path), lineage[0].name) != key)

    def table_functions(self, importer: str, local: str) -> Optional[list[Symbol]]:
        """The project functions of a constant table of functions (`LOADERS`, `data.LOADERS`:
        `ModuleExports.function_tables`) that `importer` names `local`; None when it is no such
        table or one of its entries resolves to no project function."""
        importer = norm_path(importer)
        exports = self.modules.get(importer)
        if exports is None:
            return None
        head, _, rest = local.rpartition(".")
        if head:
            where = self.module_of(importer, head)
        elif rest in exports.function_tables:
            where = importer
        else:  # `from data import LOADERS [as L]`
            where, rest = next(((self.module_file(importer, ref.module, ref.level), name) for ref in exports.imports
                                for name, bound in ref.names if bound == rest), (None, rest))
        table = self.modules[where].function_tables.get(rest) if where in self.modules else None
        if not table:
            return None
        found = [self.symbol(where, name) for name in table]
        if any(f is None or f.function is None for f in found):
            return None
        return found

    def field_default(self, importer: str, klass: str, field: str) -> tuple:
        """(the literal default, the Symbol) of a field of a project class that `importer` names
        `klass` (a dataclass of experiment defaults in another module); (None, None) if unknown."""
        symbol = self.symbol(importer, klass)
        if symbol is None or symbol.klass is None:
            return None, None
        return symbol.klass.field_defaults.get(field), symbol

    def referenced_elsewhere(self, path: str, name: str, depth: int = 0, among: Optional[frozenset] = None) -> bool:
        """Does another module import `name` from `path` (directly, or through a package that
        re-exports it), or call it through the module (`utils.load(...)`)? A package's
        `__init__.py` that only re-exports it counts when something uses it from the package.
        `among`: only those modules count (a program's)."""
        target = norm_path(path)
        for other, exports in self.modules.items():
            if other == target or (among is not None and other not in among):
                continue
            for ref in exports.imports:
                if any(imported == name for imported, _ in ref.names) and \
                        self.exports_from(self.module_file(other, ref.module, ref.level), name, target):
                    if posixpath.basename(other) == "__init__.py" and depth < 3 and \
                            not self.referenced_elsewhere(other, name, depth + 1, among):
                        continue  # re-exported, and used by no one
                    return True
            for local in exports.called:
                head, _, last = local.rpartition(".")
                if last == name and head and self.module_of(other, head) == target:
                    return True
        return False

    def program_calls(self, entry: str, path: str, name: str, owner: Optional[str] = None) -> bool:
        """Does a module of the program `entry`, other than `path`, call `name` of `path`: a
        module-level function (imported, or through its module), or with `owner` (the class whose
        classmethod or staticmethod it is) `name(...)` on a class it imports from the project
        (`Owner.name`, or a subclass's: `BertModel.from_pretrained` runs the base's)? A subclass
        summary may be dropped (it says nothing), so any project class counts. A call through an
        instance is not seen: the caller asks only about methods that one would not take."""
        modules = self.closure(norm_path(entry))
        if owner is None:
            return self.referenced_elsewhere(path, name, among=modules)
        target = norm_path(path)
        for other in modules:
            exports = self.modules.get(other)
            if other == target or exports is None:
                continue
            for local in exports.called:
                head, _, last = local.rpartition(".")
                if last == name and head and self._from_project(other, head):
                    return True
        return False

    def _from_project(self, importer: str, local: str) -> bool:
        """Is the (dotted) local name of `importer` something a project module defines (imported
        from one, or reached through one: `models.Net`)?"""
        head = local.rpartition(".")[0]
        if head:
            return self.module_of(importer, head) is not None
        return any(bound == local and self.module_file(importer, ref.module, ref.level) is not None
                   for ref in self.modules[importer].imports for _, bound in ref.names)

    def exports_from(self, module: Optional[str], name: str, target: str, depth: int = 0) -> bool:
        """Is `name`, imported from `module`, the one defined in `target` (maybe re-exported)?"""
        if module is None or depth > 3:
            return False
        if module == target:
            return True
        exports = self.modules.get(module)
        return exports is not None and any(
            imported == name and self.exports_from(self.module_file(module, ref.module, ref.level), name, target, depth + 1)
            for ref in exports.imports for imported, _ in ref.names)

    def module_of(self, importer: str, dotted: str) -> Optional[str]:
        """The project module a dotted local name stands for (`import a.b as m` → m; `from a import b` → b)."""
        head, _, rest = dotted.partition(".")
        for ref in self.modules[importer].imports:
            for imported, bound in ref.names:
                if bound == head:
                    base = f"{ref.module}.{imported}" if ref.module else imported
                    return self.module_file(importer, f"{base}.{rest}" if rest else base, ref.level)
            if ref.local == head and not ref.names:
                if ref.local != ref.module.split(".", 1)[0]:  # `import a.b as m`: m.c is a.b.c
                    return self.module_file(importer, f"{ref.module}.{rest}" if rest else ref.module)
                return self.module_file(importer, dotted)  # `import a.b`: the dotted name is the module
        return None

    def model_parallelism(self, path: str) -> Optional[str]:
        """The model parallelism (tensor/pipeline groups, a device mesh) of a program `path` runs in."""
        for module in sorted(self.program_modules(path)):
            found = self.modules[module].model_parallel if module in self.modules else None
            if found:
                return f"{found} in {self.display.get(module, module)}"
        return None

    def starts_processes_anywhere(self, path: str) -> bool:
        """May some module that runs with `path` start processes (multiprocessing, subprocess, ray, ...)?"""
        return any(self.modules[p].starts_processes for p in self.program_modules(path) if p in self.modules)

    def takes_gradients_near(self, path: str) -> bool:
        """Does `path`, or a module it imports directly, differentiate itself (`torch.autograd.grad`)? (Not
        the whole program: a library vendored in the repository, imported through its package, would
        silence every evaluation of its examples.)"""
        near = {norm_path(path), *self.imports_of(path)}
        return any(self.modules[p].takes_gradients for p in near if p in self.modules)

    def selects_device_anywhere(self, path: str) -> bool:
        """Does some module that runs with `path` select the process's GPU?"""
        return any(self.modules[p].selects_device for p in self.program_modules(path) if p in self.modules)

    # -- what the helpers a module calls do ---------------------------------------------------
    def function_called(self, importer: str, local: str) -> Optional[tuple]:
        """(Symbol, FunctionSummary) of the project function a call of `local` in `importer` runs
        (a class: its `__init__`); None for a library's, or one the program layer cannot see."""
        symbol = self.symbol(importer, local)
        if symbol is None:
            return None
        if symbol.function is not None:
            return symbol, symbol.function
        init = symbol.klass.methods.get("__init__") if symbol.klass is not None else None
        return (symbol, init) if init is not None else None

    def helper_that(self, path: str, does) -> Optional[tuple]:
        """(Symbol, FunctionSummary) of the first project function `path` calls through an import
        for which `does(summary)` holds (what the helper does through its own module's calls too)."""
        exports = self.modules.get(norm_path(path))
        for local in exports.called if exports is not None else ():
            found = self.function_called(path, local)
            if found is not None and does(found[1]):
                return found
        return None

    def threads_set_by(self, entry: str) -> Optional[Symbol]:
        """The project function the script `entry` calls that calls torch.set_num_threads, if any."""
        found = self.helper_that(entry, lambda f: f.sets_num_threads)
        return found[0] if found is not None else None

    def instance_evidence(self, path: str) -> Optional[tuple]:
        """(Symbol, FunctionSummary) of the first method with multi-process evidence that `path` calls on
        an instance of a project class (`t = Trainer(cfg); t.setup()`: ModuleExports.instance_calls),
        the nearest definition up its project bases; a method nothing calls says nothing (a model
        class's `enable_parallelism()` in a conversion script)."""
        exports = self.modules.get(norm_path(path))
        for callee in exports.instance_calls if exports is not None else ():
            symbol = self.callee(path, callee)
            if symbol is not None and symbol.function.multiprocess is not None:
                return symbol, symbol.function
        return None

    def program_evidence(self, entry: str) -> Optional[tuple]:
        """(what, display path, Span) of what shows the program of `entry` runs as several processes:
        the entry's own evidence, else that of a project function it calls (a class: its `__init__`),
        else that of a method it calls on an instance of a project class; None for a test module."""
        entry = norm_path(entry)
        exports = self.modules.get(entry)
        if exports is None or is_test_module(entry):
            return None
        if exports.multiprocess is not None:
            return exports.multiprocess[0], self.display.get(entry, entry), exports.multiprocess[1]
        found = self.helper_that(entry, lambda f: f.multiprocess is not None) or self.instance_evidence(entry)
        if found is None:
            return None
        symbol, function = found
        return function.multiprocess[0], symbol.path, function.multiprocess[1]


@dataclass(frozen=True)
class ClassLoops:
    """What a project class does with what it is given, over its lineage (ProgramIndex.lineage): the
    nearest definition of each method wins, as at run time."""

    init: Optional[Symbol]  # the class whose `__init__` runs (its init_stores, init_results say what it keeps)
    # "self.x" -> (the Symbol whose method holds the epoch loop, method name, loop header span, counter) for
    # each attribute iterated inside an epoch loop; the loop over the attribute may sit in one method and the
    # epoch loop around its call in another (`fit()` loops over `self.train_one_epoch()`, a mixin's)
    loops: dict
    modules: frozenset  # the lineage's modules (normalised paths)

    def stored_params(self) -> dict:
        """`__init__` parameters whose stored attribute is iterated inside an epoch loop -> (loop, attribute)."""
        stores = self.init.klass.init_stores if self.init is not None else {}
        return {param: (self.loops[attr], attr) for param, attr in stores.items() if attr in self.loops}


def class_epoch_loops(lineage: list[Symbol]) -> ClassLoops:
    """ClassLoops of the first class of `lineage`."""
    methods: dict = {}
    for symbol in lineage:
        for name, method in symbol.klass.methods.items():
            methods.setdefault(name, (symbol, method))
        for name in symbol.klass.dropped_methods:  # (defined there, saying nothing: it still hides the bases')
            methods.setdefault(name, (symbol, None))
    init = methods["__init__"][0] if methods.get("__init__", (None, None))[1] is not None else None
    methods = {name: found for name, found in methods.items() if found[1] is not None}
    loops: dict = {}
    for symbol, method in methods.values():
        for attr, span, counter in method.epoch_iterated:
            loops.setdefault(attr, (symbol, method.name, span, counter))
    for symbol, outer in methods.values():
        for called, span, counter in outer.looped_calls:
            inner = methods.get(called.split(".", 1)[1])
            for attr in inner[1].iterated if inner is not None else ():
                loops.setdefault(attr, (symbol, outer.name, span, counter))
    return ClassLoops(init, loops, frozenset(norm_path(s.path) for s in lineage))


def function_epoch_iterated(function: FunctionSummary) -> dict[str, tuple]:
    """Parameters a function iterates inside an epoch loop: param -> (name, loop header span, counter)."""
    params = set(function.params) | set(function.kwonly)
    return {attr: (function.name, span, counter) for attr, span, counter in function.epoch_iterated if attr in params}


@dataclass(frozen=True)
class InheritedLoop:
    """An epoch loop over `self.x` in a method of a class's lineage, and the class that stores `self.x`."""

    attribute: str  # "self.loader"
    loop: Symbol  # the class whose method holds the epoch loop
    method: str
    span: object  # the epoch loop's header
    counter: str  # its epoch counter, "" when unknown
    store: Symbol  # the first class of the lineage whose methods store the attribute
    kind: str  # what it stores there (ClassSummary.attributes), "" when no DataLoader
    row: int


def inherited_epoch_loops(lineage: list[Symbol]) -> list[InheritedLoop]:
    """The epoch loops over `self.x` that the first class of `lineage` (ProgramIndex.lineage) runs:
    its methods and those it inherits (the nearest definition of a name wins), an iteration inside
    an epoch loop of one method or in a method called inside a loop of another; each with the
    nearest class that stores `self.x` (none found: left out)."""
    methods: dict = {}
    for symbol in lineage:
        for name, method in symbol.klass.methods.items():
            methods.setdefault(name, (symbol, method))
    loops = []
    for symbol, method in methods.values():
        loops += [(attr, symbol, method.name, span, counter) for attr, span, counter in method.epoch_iterated]
        for called, span, counter in method.looped_calls:
            inner = methods.get(called.split(".", 1)[1])
            if inner is not None:
                loops += [(attr, symbol, method.name, span, counter) for attr in inner[1].iterated]
    out, seen = [], set()
    for attr, symbol, method, span, counter in loops:
        if not attr.startswith("self.") or attr.count(".") != 1 or attr in seen:
            continue
        seen.add(attr)
        store = next((s for s in lineage if attr in s.klass.attributes), None)
        if store is not None:
            kind, row = store.klass.attributes[attr]
            out.append(InheritedLoop(attr, symbol, method, span, counter, store, kind, row))
    return out
