"""What other modules of the project show about a `torch.load` (the project phase decides).

A load that its own module cannot clear (facts/loads.py, facts/rank_files.py) may still read a file
of CPU tensors, or the rank's own file, for a reason that lives in another module:
- it sits in a method of a class that derives from `torch.utils.data.Dataset` through project
  classes of other modules (`class ShapeDataset(CachedDataset)`, `CachedDataset` in `data/base.py`):
  DataLoader workers run without CUDA;
- its path ends in a file name (`lang / "vocab.pt"`, or a constant naming one: `ckpt / CONSOLIDATE_NAME`
  with `from checkpoint import CONSOLIDATE_NAME`) that another project module (a preparation script)
  saves data (or a command-line namespace) into, from the CPU, or writes with torch's
  `dcp_to_torch_save` (a consolidated checkpoint of CPU tensors), and no module saves model state
  under that name;
- its path holds `self.rank`, which a base class in another module sets to the process's rank
  (`self.rank = dist.get_rank()`), and no class of the lineage sets otherwise.

Each module's summary states its classes (`"load_classes"`: bases and the rank attributes they
set) and the file names it saves (`"saved_file_names"`); `load_hints` says what a load needs from
them, and `cleared_elsewhere` asks.

One more, within the module: a path built by a call that is passed the rank (`pattern(p,
rank=env.global_rank)`) and saved by the module under the same name is the rank's own file
(`rank_passed_file`).

For DSL301, what makes a dataset (`dataset_makers`): the classes whose instance a value may hold,
through the project functions that return it (`def Dataset(...): return DataList(...)`) and the
functional datapipe calls on it (`Source(...).map(f)`); each module states its functions' makers
(`"dataset_factories"`), and `made_iterable` asks whether every one is an iterable dataset.
"""
from __future__ import annotations

import ast
import posixpath
import re
from typing import TYPE_CHECKING, Optional

from ..sources.names import dotted, is_library, root_name
from .bindings import semantic_model
from .loaded_values import saved_namespace
from .loads import DATASETS, cpu_data, may_be_state, plain_state_dict
from .program import norm_path
from .rank_files import names_a_rank
from .script import CallSite, ScriptFacts
from .summary import summary_extractor

if TYPE_CHECKING:
    from .setup import Project


# -- the summaries ------------------------------------------------------------------------------

@summary_extractor("load_classes")
def load_classes(facts: ScriptFacts) -> dict:
    """class name -> (((base as written, its qualname or ""), ...), rank attributes, other attributes):
    the `self.x` with "rank" in the name that its methods store, split by whether every store is the
    process's rank. A class with neither bases nor such attributes says nothing and is left out."""
    if not facts.classes:
        return {}
    stores = _rank_stores(facts) if "rank" in facts.text else {}
    out = {}
    for name, node in facts.classes.items():
        ranks, others = stores.get(id(node), (set(), set()))
        if node.bases or ranks or others:
            bases = tuple((dotted(b) or "", facts.resolve(b) or "") for b in node.bases)
            out[name] = (bases, tuple(sorted(ranks - others)), tuple(sorted(others)), _methods_defined(node))
    return out


def _methods_defined(node: ast.ClassDef) -> tuple:
    return tuple(sorted(n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))))


def _rank_stores(facts: ScriptFacts) -> dict:
    """id(class) -> (attributes stored a rank, attributes stored anything else)."""
    model = None
    out: dict = {}
    for attr, where in facts.of_type(ast.Attribute):
        if not isinstance(attr.ctx, ast.Store) or "rank" not in attr.attr or where.class_ is None \
                or not _is_self(where.function, attr.value):
            continue
        model = model or semantic_model(facts)
        value = _stored_value(model, attr)
        ranks, others = out.setdefault(id(where.class_), (set(), set()))
        (ranks if value is not None and names_a_rank(model, value) else others).add(attr.attr)
    return out


def _is_self(function, expr: ast.AST) -> bool:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.args.args:
        return False
    return isinstance(expr, ast.Name) and expr.id == function.args.args[0].arg


def _stored_value(model, target: ast.AST) -> Optional[ast.AST]:
    """The value `self.x = v` (or `self.a, self.x = a, v`) stores, else None."""
    parent = model.parent_of(target)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and target in (getattr(parent, "targets", None) or [parent.target]):
        return parent.value
    if isinstance(parent, ast.Tuple):
        statement = model.parent_of(parent)
        if isinstance(statement, ast.Assign) and statement.targets == [parent] and isinstance(statement.value, ast.Tuple) \
                and len(statement.value.elts) == len(parent.elts):
            return statement.value.elts[parent.elts.index(target)]
    return None


@summary_extractor("saved_file_names")
def saved_file_names(facts: ScriptFacts) -> tuple:
    """(file names saved from the CPU, file names saved from what may be model state, and the same two
    for paths ending in a name imported from a project module, as written: `f"{d}/{NAME}"`): the last
    part of each `torch.save` path that ends in a literal file name (`lang_dir / "L.pt"`)."""
    sites = facts.calls_to("torch.save")
    consolidated = facts.calls_to(*_DCP_TO_TORCH)
    if not sites and not consolidated:
        return ((), ())
    model = semantic_model(facts)
    known = _file_constant(model)
    cpu, state, cpu_imported, state_imported = set(), set(), set(), set()

    def add(path: ast.AST, from_cpu: bool) -> None:
        name = final_file_name(path, known)
        if name is not None:
            (cpu if from_cpu else state).add(name)
            return
        local = _imported_last_part(model, path)
        if local is not None:
            (cpu_imported if from_cpu else state_imported).add(local)

    for site in consolidated:  # torch/distributed/checkpoint/format_utils.py: loads the DCP on the CPU, torch.saves it
        path = site.argument(1, "torch_save_path")
        if path is not None:
            add(path, True)
    for site in sites:
        value, path = site.argument(0, "obj"), site.argument(1, "f")
        if path is None or value is None:
            continue
        saved = model.value_of(value)
        # (a bare name left, a parameter or one bound in several places, may be anything: counted as state)
        add(path, saved_namespace(model, value) or cpu_data(model, value, site.node) or not (
            isinstance(saved, ast.Name) or (may_be_state(saved) and not plain_state_dict(facts, value, site.ctx))))
    found = (tuple(sorted(cpu)), tuple(sorted(state)))
    return found + (tuple(sorted(cpu_imported)), tuple(sorted(state_imported))) if cpu_imported or state_imported \
        else found


_DCP_TO_TORCH = ("torch.distributed.checkpoint.format_utils.dcp_to_torch_save",)


def _file_constant(model):
    """`known` for final_file_name: the string a name of the module is bound to once, else None."""
    from .values import UNKNOWN, constant

    def known(expr: ast.AST) -> Optional[str]:
        value = constant(model, expr)
        return value if isinstance(value, str) and value is not UNKNOWN else None

    return known


def final_file_name(path: ast.AST, known=None) -> Optional[str]:
    """The file name a path expression ends in when its last part is a literal one (`"vocab.pt"`,
    `d / "L.pt"`, `os.path.join(d, "L.pt")`, `f"{d}/feats.pt"`), or a name `known(name)` gives a
    string for (`d / NAME`): a name with a stem and a suffix."""
    last, joined = _path_tail(path, known)
    if not (isinstance(last, ast.Constant) and isinstance(last.value, str)):
        return None
    name = posixpath.basename(last.value)
    if name == last.value and joined:
        return None  # f"{prefix}_L.pt": only the end of the name is literal
    stem, dot, suffix = name.rpartition(".")
    return name if dot and stem and suffix and not stem.startswith(".") else None


# -- what a load needs ---------------------------------------------------------------------------

def load_hints(facts: ScriptFacts, site: CallSite) -> tuple:
    """What the project phase may clear this load with: ("dataset", class), ("file", name),
    ("self-rank", class, attributes); () when nothing."""
    hints = []
    klass, function = site.ctx.class_, site.ctx.function
    top = klass is not None and klass in facts.tree.body
    if top and function is not None and klass.bases:
        hints.append(("dataset", klass.name))
    path = site.argument(0, "f")
    if path is None:
        return tuple(hints)
    model = semantic_model(facts)
    values = model.values_of(path)
    known = _file_constant(model)
    names = {final_file_name(v, known) for v in values}
    if len(names) == 1 and None not in names:
        hints.append(("file", names.pop()))
    elif len(values) == 1:  # `ckpt / CONSOLIDATE_NAME` of `from lingua.checkpoint import CONSOLIDATE_NAME`
        local = _imported_last_part(model, values[0])
        if local is not None:
            hints.append(("file-constant", local))
    beside = {_beside_module(v) for v in values}
    if len(beside) == 1 and None not in beside:  # `os.path.join(os.path.dirname(__file__), "Jd.pt")`
        hints.append(("beside", beside.pop()))
    if top and function is not None and "rank" in facts.text:
        attrs = _inherited_rank_reads(model, values, function, klass)
        if attrs:
            hints.append(("self-rank", klass.name, attrs))
    return tuple(hints)


def _inherited_rank_reads(model, values: list, function, klass: ast.ClassDef) -> tuple:
    """The `self.x` ("rank" in the name, stored by no method of `klass`) that every value of the
    path holds, or a rank of its own: looked for in the value, and in the values of the names in
    it (`remote = f"..._rank_{self.rank}.pt"`, then `copy_to_local(remote)`), two hops at most."""
    stored = {n.attr for n in ast.walk(klass) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    found: set = set()
    for value in values:
        if not _rank_parts(model, value, function, stored, found, 0):
            return ()
    return tuple(sorted(found))


def _rank_parts(model, expr: ast.AST, function, stored: set, found: set, depth: int) -> bool:
    ranked = False
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and "rank" in node.attr and node.attr not in stored \
                and isinstance(node.ctx, ast.Load) and _is_self(function, node.value):
            found.add(node.attr)
            ranked = True
        elif isinstance(node, (ast.Call, ast.Name, ast.Attribute)) and names_a_rank(model, node):
            ranked = True
        elif depth < 2 and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node is not expr \
                and not _is_callee(model, node):
            if any(_rank_parts(model, v, function, stored, found, depth + 1) for v in model.values_of(node)
                   if v is not node):
                ranked = True
    return ranked


def _is_callee(model, node: ast.AST) -> bool:
    parent = model.parent_of(node)
    return isinstance(parent, ast.Call) and parent.func is node


# -- the project phase ---------------------------------------------------------------------------

def _path_tail(path: ast.AST, known=None) -> tuple:
    """(the last part of a path expression, whether it is only the end of a name): through `str(...)`,
    `Path(...)`, `d / x`, `d + x`, `os.path.join(d, x)` and f-strings, and through names `known` gives a
    string for (`f"{d}/{NAME}"` ends in NAME, a whole name; `f"{prefix}_L.pt"` only in its end)."""
    last, joined = path, False
    while True:
        if isinstance(last, ast.Call) and (dotted(last.func) or "") in ("str", "Path", "pathlib.Path") \
                and len(last.args) == 1 and not last.keywords:
            last = last.args[0]
        elif isinstance(last, ast.FormattedValue):
            last = last.value
        elif isinstance(last, (ast.Name, ast.Attribute)) and known is not None and known(last) is not None:
            last = ast.Constant(known(last))
        elif isinstance(last, ast.BinOp) and isinstance(last.op, (ast.Div, ast.Add)):
            last = last.right
        elif isinstance(last, ast.JoinedStr) and last.values:
            parts = last.values
            joined = len(parts) > 1 and not (isinstance(parts[-1], ast.FormattedValue) and isinstance(parts[-2], ast.Constant)
                                             and str(parts[-2].value).endswith("/"))
            last = parts[-1]
        elif isinstance(last, ast.Call) and last.args and (dotted(last.func) or "").endswith("join") and not last.keywords:
            last = last.args[-1]
        else:
            return last, joined


def _imported_last_part(model, path: ast.AST) -> Optional[str]:
    """The name imported from a project module that a path ends in (`d / NAME`, `os.path.join(d, NAME)`,
    `f"{d}/{NAME}"`), as written; None otherwise."""
    from .config_dicts import project_import

    last, joined = _path_tail(path)
    return project_import(model, last) if isinstance(last, (ast.Name, ast.Attribute)) and not joined else None


def _beside_module(expr: ast.AST) -> Optional[str]:
    """"Jd.pt" of `os.path.join(os.path.dirname(__file__), "Jd.pt")` or `Path(__file__).parent / "Jd.pt"`: a
    file named relative to the module's own folder (one literal name), else None."""
    if isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("path.join") and len(expr.args) == 2:
        folder, name = expr.args
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        folder, name = expr.left, expr.right
    else:
        return None
    ok = isinstance(name, ast.Constant) and isinstance(name.value, str) and "/" not in name.value and ".." not in name.value
    return name.value if ok and any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(folder)) and \
        len([n for n in ast.walk(folder) if isinstance(n, ast.Constant)]) == 0 else None


def cleared_elsewhere(project: "Project", path: str, hints: tuple) -> Optional[str]:
    """Why another module shows the load of `path` reads CPU tensors or the rank's own file, or None."""
    for hint in hints or ():
        if hint[0] == "beside":
            from pathlib import Path

            from .saved_archives import saved_on_cpu

            file = Path(project.root) / Path(path).parent / hint[1]
            project.note_input(str(file))
            if file.is_file() and saved_on_cpu(str(file)):
                return f"{hint[1]}, beside the module, holds CPU storages only"
        if hint[0] == "file-constant":
            from .config_overlays import imported_values

            name = imported_values(project.program, path)(hint[1])
            if isinstance(name, str) and final_file_name(ast.Constant(name)) and _saved_as_data(project, name, path):
                return f"another project module saves {name} from the CPU"
        if hint[0] == "dataset" and _derives_from(project, norm_path(path), hint[1], DATASETS):
            return "a Dataset reads its samples on the CPU"
        if hint[0] == "file" and _saved_as_data(project, hint[1], path):
            return f"another project module saves {hint[1]} from the CPU"
        if hint[0] == "self-rank" and _inherited_ranks(project, norm_path(path), hint[1], hint[2]):
            return "a base class sets the rank the path holds"
    return None


def _extra(project: "Project", path: str, name: str):
    display = project.program.display.get(path, path)
    summary = project.scripts.get(display)
    return summary.extra.get(name) if summary is not None else None


def _lineage(project: "Project", path: str, name: str, depth: int = 6) -> list:
    """(module, class, its summary entry) of the class and the project classes it derives from,
    through each module's imports (at most `depth` * 3 classes); an entry of None for a class whose
    module summary says nothing (unknown)."""
    out, todo, seen = [], [(path, name)], set()
    while todo and len(seen) < depth * 3:
        module, klass = todo.pop()
        if (module, klass) in seen:
            continue
        seen.add((module, klass))
        entry = (_extra(project, module, "load_classes") or {}).get(klass)
        out.append((module, klass, entry))
        if entry is None:
            continue
        for written, qualname in entry[0]:
            found = _class_ref(project, module, written, 0) if written else None
            if found is not None:
                todo.append(found)
    return out


ITERABLE_DATASETS = ("torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset",
                     "torch.utils.data.IterDataPipe", "torch.utils.data.datapipes.datapipe.IterDataPipe")


# Library datapipes: torch's and torchdata's (`IterableWrapper(...)`, every IterDataPipe of theirs).
_LIBRARY_DATAPIPES = ("torch.utils.data.datapipes.iter.", "torchdata.datapipes.iter.")


def iterable_base(qualname: str) -> bool:
    """Is the library class of this qualified name an iterable dataset (IterableDataset, IterDataPipe or
    one of torch's or torchdata's iter datapipes)?"""
    return qualname in ITERABLE_DATASETS or qualname.startswith(_LIBRARY_DATAPIPES) or (
        qualname.split(".", 1)[0] in ("torch", "torchdata")
        and qualname.rsplit(".", 1)[-1].endswith(("IterableDataset", "IterDataPipe")))


# IterDataPipe's own methods that return no datapipe. Any other method an iterable dataset's classes do
# not define is a functional datapipe (`dp.map(f)`, a `@functional_datapipe("shard")` name): IterDataPipe's
# __getattr__ builds the registered class on it, and functional_datapipe registers IterDataPipes only.
_DATAPIPE_OWN_METHODS = frozenset(("reset", "set_getstate_hook", "set_reduce_ex_hook", "register_function",
                                   "register_datapipe_as_function", "state_dict", "load_state_dict"))

_MAKERS_LIMIT = 48  # expressions followed for one dataset (wenet's `dataset = dataset.map(...)` chains: ~30)


def dataset_makers(facts: ScriptFacts, expr: ast.AST, depth: int = 0) -> Optional[tuple]:
    """What makes each value `expr` may hold, through the names it is bound to (every binding), the
    functions of this module it is returned by (3 deep) and the method calls on it: a tuple of
    (kind, name, methods called on the instance after), kind "library" (a qualified name) or "project"
    (as written: a class of this module, or a class or function imported from another). None when some
    value is made otherwise (a parameter, a literal, a method of an unknown receiver)."""
    model = semantic_model(facts)
    out: set = set()
    work, seen = [(expr, ())], set()
    while work:
        current, methods = work.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if len(seen) > _MAKERS_LIMIT or len(methods) > _MAKERS_LIMIT:
            return None
        if isinstance(current, (ast.Name, ast.Attribute)) and model.resolve(current) is None:
            values = model.values_of(current, hops=1)
            if not values or any(v is current for v in values):
                return None  # a parameter, a loop variable, a name bound nowhere it can be told
            work.extend((v, methods) for v in values)
            continue
        table = _registry_lookup(model, current.func) if isinstance(current, ast.Call) else None
        if table is not None:
            out.add(("registry", table, methods))  # `DATASETS[name](...)`: any class registered in that table
            continue
        if isinstance(current, ast.Call) and isinstance(current.func, ast.Call):
            found = _getattr_of_module(model, current.func)  # `getattr(streams, fmt)(path)`
            if found is None:
                return None
            out.add((found[0], found[1], methods))
            continue
        if not isinstance(current, ast.Call) or not isinstance(current.func, (ast.Name, ast.Attribute)):
            return None
        func = current.func
        qualname = model.resolve(func)
        root = root_name(func)
        binding = model.binding_of(root) if root is not None else None
        if qualname is not None and is_library(qualname):
            out.add(("library", qualname, methods))
        elif qualname is not None or binding is not None and binding.kind == "class" and func is root:
            out.add(("project", dotted(func) or "", methods))
        elif binding is not None and binding.kind == "def" and func is root:
            if depth >= 3:
                return None
            returned = _function_makers(facts, binding.node, depth + 1)
            if returned is None:
                return None
            out.update((kind, name, inner + methods) for kind, name, inner in returned)
        elif isinstance(func, ast.Attribute):
            work.append((func.value, (func.attr,) + methods))  # `dataset.map(f)`: made from its receiver
        else:
            # `dataset_cls = streams.JsonlTokens; dataset_cls(...)`: a call of the classes the name is bound to
            classes = _bound_classes(facts, model, func, depth)
            if classes is None:
                return None
            out.update((kind, name, inner + methods) for kind, name, inner in classes)
    return tuple(sorted(out)) if out else None


def _bound_classes(facts: ScriptFacts, model, func: ast.Name, depth: int) -> Optional[tuple]:
    """The makers (as dataset_makers gives them) of a call of a name bound to class references (every
    binding): `cls = streams.JsonlTokens`, `cls = Packed if packed else Plain`, a function of this module
    (`build = make_dataset`), or `getattr(streams, fmt)` of an imported project module (kind "module":
    any class that module defines, with the name as written) or of a literal name (`streams.JsonlTokens`).
    None when some binding is anything else."""
    values = model.values_of(func)
    if not values or any(v is func for v in values):
        return None  # a parameter, a builtin, a name bound nowhere it can be told
    out: set = set()
    values = list(values)
    for value in values:
        if isinstance(value, ast.IfExp) and len(values) < _MAKERS_LIMIT:
            values.extend((value.body, value.orelse))  # `Packed if packed else Plain`: either
            continue
        if isinstance(value, ast.Call):
            found = _getattr_of_module(model, value)
            if found is None:
                return None
            out.add(found)
            continue
        if not isinstance(value, (ast.Name, ast.Attribute)):
            return None
        qualname = model.resolve(value)
        root = root_name(value)
        binding = model.binding_of(root) if root is not None else None
        if qualname is not None and is_library(qualname):
            out.add(("library", qualname, ()))
        elif qualname is not None or binding is not None and binding.kind == "class" and value is root:
            out.add(("project", dotted(value) or "", ()))
        elif binding is not None and binding.kind == "def" and value is root and depth < 3:
            returned = _function_makers(facts, binding.node, depth + 1)
            if returned is None:
                return None
            out.update(returned)
        else:
            return None
    return tuple(sorted(out)) if out else None


def _registry_lookup(model, func: ast.AST) -> Optional[str]:
    """The table (as written) of a call of an entry looked up in it: `DATASETS[name](...)`,
    `DATASETS.get(name)(...)`, the table a name of this module or imported from the project (the project
    phase checks it is a registry: registered_classes); None otherwise."""
    if isinstance(func, ast.Subscript):
        table = func.value
    elif isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and func.func.attr == "get" \
            and func.args and not func.keywords:
        table = func.func.value
    else:
        return None
    if not isinstance(table, (ast.Name, ast.Attribute)):
        return None
    qualname = model.resolve(table)
    if qualname is not None and is_library(qualname):
        return None
    root = root_name(table)
    binding = model.binding_of(root) if root is not None else None
    if binding is None or binding.kind not in ("assignment", "from-import", "import"):
        return None
    return dotted(table)


def _getattr_of_module(model, call: ast.Call) -> Optional[tuple]:
    """`getattr(streams, fmt)` (the builtin, two arguments) of a name imported from the project: the maker
    ("module", "streams", ()) (any class the module defines: made_iterable asks the module), or for a
    literal attribute `getattr(streams, "JsonlTokens")` the class ("project", "streams.JsonlTokens", ())."""
    func = call.func
    if not (isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) == 2 and not call.keywords
            and not model.reaching("getattr", func)):
        return None
    owner, attribute = call.args
    if not isinstance(owner, (ast.Name, ast.Attribute)) or isinstance(attribute, ast.Starred):
        return None
    qualname = model.resolve(owner)
    written = dotted(owner)
    if qualname is None or is_library(qualname) or written is None:
        return None  # not an imported project name (a module: the project phase checks it is one)
    if isinstance(attribute, ast.Constant):
        return ("project", f"{written}.{attribute.value}", ()) if isinstance(attribute.value, str) else None
    return ("module", written, ())


def _function_makers(facts: ScriptFacts, function: ast.AST, depth: int) -> Optional[tuple]:
    """dataset_makers of every value the function returns; None for a generator or one without a `return`."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    returns, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            if node.value is None:
                return None
            returns.append(node.value)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    out: set = set()
    for value in returns:
        found = dataset_makers(facts, value, depth)
        if found is None:
            return None
        out.update(found)
    return tuple(sorted(out)) if out else None


@summary_extractor("dataset_factories")
def dataset_factories(facts: ScriptFacts) -> dict:
    """function name -> dataset_makers of what it returns, for the module-level functions of a module that
    builds datasets (its text names one) whose every return is made by known classes or functions."""
    if not any(word in facts.text for word in _DATASET_WORDS):
        return {}
    # (the returns of the module-level functions from the facts' index, not a walk of every body)
    returns: dict = {}
    for node, ctx in facts.of_type(ast.Return):
        returns.setdefault(id(ctx.function), []).append(node)
    generators = {id(ctx.function) for kind in (ast.Yield, ast.YieldFrom) for _, ctx in facts.of_type(kind)}
    out = {}
    for node in facts.tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or id(node) in generators:
            continue
        own = returns.get(id(node))
        if not own or any(r.value is None or not _may_make(r.value) for r in own):
            continue
        found = _returned_makers(facts, own, 1)
        if found is not None:
            out[node.name] = found
    return out


def _registries(facts: ScriptFacts) -> tuple[dict, dict]:
    """({table: classes it names as literal values}, {decorator function: table}) of the registries of a
    module: module-level dicts (`DATASETS = {}`) that a module-level function fills with what it is given
    (`def register(name): def deco(cls): DATASETS[name] = cls; return cls; return deco`)."""
    def compute(facts: ScriptFacts) -> tuple[dict, dict]:
        tables: dict = {}
        for node in facts.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                if isinstance(value, ast.Dict) or isinstance(value, ast.Call) and dotted(value.func) == "dict" \
                        and not value.args and not value.keywords:
                    names = tuple(v.id for v in value.values if isinstance(v, ast.Name)) \
                        if isinstance(value, ast.Dict) else ()
                    tables.update((t.id, names) for t in targets if isinstance(t, ast.Name))
        decorators: dict = {}
        filled = tables and any(f"{table}[" in facts.text for table in tables)  # (a store into one, somewhere)
        for node in facts.tree.body if filled else ():
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Name) and any(
                        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in tables
                        for t in inner.targets):
                    decorators[node.name] = next(t.value.id for t in inner.targets if isinstance(t, ast.Subscript))
                    break
        return ({t: names for t, names in tables.items() if names or t in decorators.values()}, decorators)

    return facts.derived("registries", compute)


@summary_extractor("registry_tables")
def registry_tables(facts: ScriptFacts) -> dict:
    """table -> the classes it names as literal values, for each registry of the module (_registries)."""
    return _registries(facts)[0] if "[" in facts.text else {}


@summary_extractor("registry_decorators")
def registry_decorators(facts: ScriptFacts) -> dict:
    """decorator function -> the registry table it fills (_registries)."""
    return _registries(facts)[1] if "[" in facts.text else {}


@summary_extractor("registered_classes")
def registered_classes(facts: ScriptFacts) -> tuple:
    """(class, decorator as written) for each top-level class of the module decorated by a project name
    (`@register("c4")`): a registry decorator of some module may have put it in its table."""
    out = []
    for node in facts.tree.body:
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                written = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
                qualname = facts.resolve(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if written and not (qualname is not None and is_library(qualname)):
                    out.append((node.name, written))
    return tuple(out)


def _registered(project: "Project", path: str, written: str) -> Optional[list]:
    """(module, class) of every class in the registry table `written` of `path` refers to: its literal
    entries and the project classes decorated by a function that fills it; None when it is no registry."""
    found = _class_ref(project, path, written, 0, "registry_tables")
    if found is None:
        return None
    module, table = found
    out = [(module, klass) for klass in (_extra(project, module, "registry_tables") or {}).get(table, ())]
    filling = {f for f, t in (_extra(project, module, "registry_decorators") or {}).items() if t == table}
    for other in project.program.modules if filling else ():
        for klass, decorator in _extra(project, other, "registered_classes") or ():
            ref = _class_ref(project, other, decorator, 0, "registry_decorators")
            if ref is not None and ref[0] == module and ref[1] in filling:
                out.append((other, klass))
    return out


@summary_extractor("module_classes")
def module_classes(facts: ScriptFacts) -> Optional[tuple]:
    """(the names of the classes the module defines at its top level and of those it imports from project
    modules (`from .base import Stream`), whether `getattr(module, name)` may give something else that could
    make a dataset: a public function, a `*` import, a public alias of what is not one of those classes),
    for a module that defines a class; None otherwise. `getattr(streams, fmt)(...)` of
    it makes an instance of one of those classes when nothing else may be picked (made_iterable, the
    "module" maker). Names imported from libraries (`IterableDataset`, `json`) are left out."""
    if not facts.classes:
        return None
    classes: list = []
    aliases: list = []
    other = False
    todo = list(facts.tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.ClassDef):
            classes.append(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            other = other or not node.name.startswith("_")
        elif isinstance(node, ast.ImportFrom) and (node.level or not is_library(node.module or "")):
            other = other or any(a.name == "*" for a in node.names)
            classes.extend(a.asname or a.name for a in node.names)  # (each must be an iterable dataset class)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node.value, (ast.Name, ast.Attribute)) and any(
                    not isinstance(t, ast.Name) or not t.id.startswith("_") for t in targets):
                aliases.append(dotted(node.value) or "")
        elif isinstance(node, (ast.If, ast.Try)):
            todo.extend(node.body + node.orelse + getattr(node, "finalbody", [])
                        + [s for h in getattr(node, "handlers", []) for s in h.body])
    other = other or any(alias not in classes for alias in aliases)
    return (tuple(classes), other) if classes else None


def _may_make(value: ast.AST) -> bool:
    """Can a returned value be a dataset instance: a call, a name or attribute (bound to one), a tuple?"""
    return isinstance(value, (ast.Call, ast.Name, ast.Attribute, ast.IfExp))


def _returned_makers(facts: ScriptFacts, returns: list, depth: int) -> Optional[tuple]:
    out: set = set()
    for ret in returns:
        found = dataset_makers(facts, ret.value, depth)
        if found is None:
            return None
        out.update(found)
    return tuple(sorted(out)) if out else None


# (a cheap first test only: `in` on the text, ~10x faster than a case-blind regex over it)
_DATASET_WORDS = ("ataset", "ATASET", "atapipe", "ATAPIPE", "terable", "TERABLE")


def local_made_iterable(facts: ScriptFacts, makers: tuple) -> Optional[bool]:
    """Does this module show every maker (dataset_makers) is an iterable dataset? None when some is a
    project name it cannot tell (an imported class or function, a class with an imported base)."""
    verdict: Optional[bool] = True
    for kind, name, methods in makers:
        if kind == "library":
            if not iterable_base(name):
                return False
            continue
        klass = facts.classes.get(name) if kind == "project" else None
        if klass is None:
            verdict = None  # imported (a class, a function, a module's classes): the project phase (made_iterable) decides
            continue
        iterable, defined, unknown = _local_lineage(facts, klass)
        if set(methods) & (defined | _DATAPIPE_OWN_METHODS):
            return False  # a method of its own: what it returns is not known
        if iterable and not (unknown and methods):
            continue
        if not unknown:
            return False
        verdict = None
    return verdict


def _local_lineage(facts: ScriptFacts, klass: ast.ClassDef) -> tuple:
    """(derives from an iterable dataset, methods its classes of this module define, whether a base is
    a project class of another module) for a class of this module and its bases here."""
    iterable, defined, unknown = False, set(), False
    todo, seen = [klass], set()
    while todo:
        node = todo.pop()
        if id(node) in seen or len(seen) > 12:
            continue
        seen.add(id(node))
        defined.update(_methods_defined(node))
        for base in node.bases:
            qualname = facts.resolve(base)
            local = facts.classes.get(dotted(base) or "")
            if qualname is not None and iterable_base(qualname):
                iterable = True
            elif qualname is None and local is not None:
                todo.append(local)
            elif qualname is not None and not is_library(qualname):
                unknown = True
    return iterable, defined, unknown


def made_iterable(project: "Project", path: str, makers: tuple, depth: int = 0) -> bool:
    """Is every maker (dataset_makers of `path`) an iterable dataset: a class deriving, through project
    classes, from IterableDataset or IterDataPipe, none of whose classes defines a method called on the
    instance after (those are functional datapipes), or a project function whose every return is one
    (`def Dataset(...): return DataList(...)` in another module)?"""
    path = norm_path(path)
    for kind, name, methods in makers:
        if kind == "library":
            if not iterable_base(name):
                return False
            continue
        if kind == "module":  # `getattr(streams, fmt)(...)`: any class of that module, each an iterable dataset
            module = project.program.module_of(path, name) if path in project.program.modules else None
            entry = _extra(project, module, "module_classes") if module is not None else None
            if not entry or entry[1] or depth >= 4 or not all(
                    made_iterable(project, module, (("project", klass, methods),), depth + 1) for klass in entry[0]):
                return False
            continue
        if kind == "registry":  # `DATASETS[name](...)`: every class registered there, each an iterable dataset
            classes = _registered(project, path, name)
            if not classes or depth >= 4 or not all(
                    made_iterable(project, module, (("project", klass, methods),), depth + 1) for module, klass in classes):
                return False
            continue
        found = _class_ref(project, path, name, 0)
        if found is not None:
            lineage = _lineage(project, found[0], found[1])
            if not any(entry is not None and any(iterable_base(q) for _, q in entry[0]) for _, _, entry in lineage):
                return False
            if methods and (any(entry is None or len(entry) < 4 for _, _, entry in lineage) or set(methods) & (
                    _DATAPIPE_OWN_METHODS | {m for _, _, entry in lineage for m in entry[3]})):
                return False
            continue
        found = _class_ref(project, path, name, 0, "dataset_factories")
        returned = (_extra(project, found[0], "dataset_factories") or {}).get(found[1]) if found else None
        if returned is None or depth >= 4 or not made_iterable(
                project, found[0], tuple((k, n, inner + methods) for k, n, inner in returned), depth + 1):
            return False
    return True


def imported_class_derives_from(project: "Project", path: str, local: str, qualnames: tuple) -> bool:
    """Does the project class the (dotted) name `local` of `path` imports derive, through project
    classes, from one of `qualnames` (`class Packed(IterableDataset)` in data/packed.py)?"""
    found = _class_ref(project, norm_path(path), local, 0)
    return found is not None and _derives_from(project, found[0], found[1], qualnames)


def _derives_from(project: "Project", path: str, name: str, qualnames: tuple) -> bool:
    return any(entry is not None and any(q in qualnames for _, q in entry[0])
               for _, _, entry in _lineage(project, path, name))


def _inherited_ranks(project: "Project", path: str, name: str, attrs: tuple) -> bool:
    lineage = _lineage(project, path, name)
    if any(entry is None for _, _, entry in lineage):
        return False
    return all(any(a in entry[1] for _, _, entry in lineage) and not any(a in entry[2] for _, _, entry in lineage)
               for a in attrs)


def _class_ref(project: "Project", importer: str, local: str, depth: int, key: str = "load_classes") -> Optional[tuple]:
    """(module, class name) of the project class the (dotted) name `local` of `importer` refers to:
    its own, or one imported (through packages that re-export it, at most 4 hops); None otherwise.
    With `key` "dataset_factories": of the function (dataset_factories) it refers to."""
    if depth > 4:
        return None
    program = project.program
    head, _, rest = local.partition(".")
    if not rest and local in (_extra(project, importer, key) or {}):
        return importer, local
    exports = program.modules.get(importer)
    if exports is None:
        return None
    for ref in exports.imports:
        for name, bound in ref.names:
            if bound != head:
                continue
            if not rest:
                target = program.module_file(importer, ref.module, ref.level)
                if target is not None:
                    return _class_ref(project, target, name, depth + 1, key)
            else:
                sub = program.module_file(importer, f"{ref.module}.{name}" if ref.module else name, ref.level)
                if sub is not None:
                    return _class_ref(project, sub, rest, depth + 1, key)
        if not ref.names and rest and ref.local == head:
            if ref.local != ref.module.split(".")[0]:  # `import a.b as c`: c.X is a.b's X
                target = program.module_file(importer, ref.module)
                return _class_ref(project, target, rest, depth + 1, key) if target is not None else None
            parts = local.split(".")  # `import a.b`: a.b.X is a.b's X
            for cut in range(len(parts) - 1, 0, -1):
                target = program.module_file(importer, ".".join(parts[:cut]))
                if target is not None:
                    return _class_ref(project, target, ".".join(parts[cut:]), depth + 1, key)
    return None


# File names that say they hold a model's or optimizer's state (`pytorch_model.bin`, `optimizer.pt`).
_WEIGHTS_FILE = re.compile(r"model|weight|optim|ckpt|checkpoint|state_dict|engine|adapter", re.IGNORECASE)


def _saved_as_data(project: "Project", name: str, loader: str) -> bool:
    """Does some project module save `name` from the CPU, and none from what may be model state? For a
    name that says it holds model state (`pytorch_model.bin`, `model_args.pth`) only the modules under the
    loader's own top folder count: another application saving data under such a generic name says
    nothing about this one's file."""
    from .config_overlays import imported_values

    generic = _WEIGHTS_FILE.search(name.rpartition(".")[0])
    top = norm_path(loader).split("/")[0] if "/" in norm_path(loader) else None
    if generic and top is None:
        return False
    cpu = False
    for path, summary in project.scripts.items():
        found = summary.extra.get("saved_file_names") if summary is not None else None
        if not found or generic and norm_path(path).split("/")[0] != top:
            continue
        cpu_names, state_names = set(found[0]), set(found[1])
        if len(found) > 2:  # (names imported from another module: their values)
            lookup = imported_values(project.program, path)
            cpu_names |= {lookup(local) for local in found[2]}
            state_names |= {lookup(local) for local in found[3]}
        if name in state_names:
            return False
        cpu = cpu or name in cpu_names
    return cpu


# -- within the module ---------------------------------------------------------------------------

def rank_passed_file(facts: ScriptFacts, site: CallSite) -> bool:
    """`path = pattern(p, rank=env.global_rank)`, loaded and saved (`torch.save(..., path)`) by the
    module under that name: a call that is given the rank (by a keyword naming it) builds the name
    of the rank's own file."""
    path = site.argument(0, "f")
    if not isinstance(path, ast.Name):
        return False
    model = semantic_model(facts)
    values = model.values_of(path)
    if not values or not all(_given_the_rank(v) for v in values):
        return False
    return any(isinstance(p := s.argument(1, "f"), ast.Name) and p.id == path.id
               and {id(v) for v in model.values_of(p)} == {id(v) for v in values} for s in facts.calls_to("torch.save"))


# The keyword a path builder takes the rank by, and the last name of what a caller passes it as (not a
# node's or a group's rank: the ranks of one node, or of one group index, would share the file).
_RANK_KEYWORDS = frozenset(("rank", "global_rank", "local_rank"))
_RANK_NAMES = frozenset(("rank", "global_rank", "local_rank", "world_rank", "dist_rank", "process_index"))


def _given_the_rank(value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    return any(k.arg in _RANK_KEYWORDS and isinstance(k.value, (ast.Name, ast.Attribute))
               and (dotted(k.value) or "").rsplit(".", 1)[-1] in _RANK_NAMES for k in value.keywords)
