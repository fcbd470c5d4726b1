"""What a `torch.load` reads back, where the module itself shows it: tensors on the CPU.

`torch.load` restores each tensor onto the device it was saved from, so a load without
`map_location` matters only for files saved from a GPU. A module shows that a file holds CPU tensors
when it writes the file itself from something that is no model state:
- `torch.save(x.cpu(), "feats.pt")`, then `torch.load(os.path.join(d, "feats.pt"))` (the same literal);
- `torch.save(dataset, cache_path)` then `torch.load(cache_path)` in the same function, or a
  spectrogram computed from audio, saved and read back under the same name: data made on the CPU
  (a value that names no `state_dict()`, model, optimizer or checkpoint is taken as data);
- a sample read in a `torch.utils.data.Dataset` method: DataLoader workers run without CUDA;
- `torch.save(progress.state_dict(), ...)` where `progress` is (by its annotation or its constructor)
  an instance of a class of this module whose `state_dict()` returns a dict literal of its fields,
  each annotated with a type that holds no tensor (`int`, `Optional[str]`, `dict[str, float]`; an
  `Any` container only where the field holds a data loader's or sampler's state, made on the CPU);
- every read of the loaded value is `torch.from_numpy(...)` (of it or of an item): numpy arrays;
- the loaded value is a sampler's state the module saves, or is only returned under a tensor-free
  annotation; the saved value is a command-line namespace (facts/loaded_values.py). What other
  modules show is facts/program_loads.py's.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..sources.names import dotted
from .bindings import semantic_model
from .loaded_values import restored_loader_state, returned_tensor_free, saved_namespace
from .script import CallSite, ScriptFacts

DATASETS = ("torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
             "torch.utils.data.dataset.IterableDataset")
# Words of a name that may hold model state (GPU tensors): such a save proves nothing about the device.
_RNG_GETTERS = re.compile(r"get_rng_state(_all)?$|getstate$|get_state$")
_SCHEDULER = re.compile(r"(^|[._])(lr_)?sched(uler)?$", re.IGNORECASE)
_STATE_WORDS = re.compile(r"state|model|net|optim|ckpt|checkpoint|weight|param|module|engine|sd\b", re.IGNORECASE)


def loads_cpu_tensors(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    """Why the module shows this torch.load reads CPU tensors (a few words), or None."""
    if _in_dataset(facts, site):
        return "a Dataset reads its samples on the CPU"
    if _read_as_numpy(facts, site):
        return "every read of it is torch.from_numpy(...): the file holds numpy arrays"
    if restored_loader_state(facts, site):
        return "the module saved this file from a sampler's or data loader's state"
    if returned_tensor_free(facts, site, lambda annotation: _tensor_free(annotation, "")):
        return "it is returned under an annotation that holds no tensor"
    if _into_trt_module(facts, site):
        return "a torch2trt TRTModule's state is a serialized TensorRT engine, no tensor"
    path = site.argument(0, "f")
    if path is None:
        return None
    literals, names = facts.derived("cpu_saves", _cpu_saves)
    paths = [path]
    if isinstance(path, ast.Name):  # `rng_file = os.path.join(d, "rng_state.pth")` in either branch
        paths += semantic_model(facts).values_of(path, hops=1)
    if any(_file_names(p) & literals for p in paths):
        return "the module saved this file from the CPU"
    name = dotted(path)
    if name and (id(site.ctx.function), name) in names:
        return "the module saved this file from the CPU"
    saver = _paired_cpu_saver(facts, site, path)
    if saver is not None:
        return f"{saver}, its saving pair, writes CPU tensors"
    return None


def _paired_cpu_saver(facts: ScriptFacts, site: CallSite, path: ast.AST) -> Optional[str]:
    """`def load_network(self, load_path, net): torch.load(load_path)` beside `def save_network(self, ...)`
    in the same class (or two module-level functions of the module) whose every `torch.save` writes
    CPU tensors (cpu_data): the loader of a save_X/load_X pair reads the files its saver writes. The
    path must be a parameter of the loader, not rebound; a subclass of the module that defines a
    `save_X` of its own (it writes other files) leaves it unknown."""
    function = site.ctx.function
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(path, ast.Name):
        return None
    match = re.fullmatch(r"(_*)load_(\w+)", function.name)
    if match is None:
        return None
    klass = site.ctx.class_
    owner = klass.body if klass is not None and function in klass.body else facts.tree.body if function in facts.tree.body \
        else None
    if owner is None:
        return None
    model = semantic_model(facts)
    bound = model.reaching(path.id, path)
    if len(bound) != 1 or bound[0].kind != "parameter":
        return None
    wanted = f"{match.group(1)}save_{match.group(2)}"
    saver = next((s for s in owner if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == wanted), None)
    if saver is None:
        return None
    if klass is not None and any(
            any(dotted(b) == klass.name for b in other.bases) and any(
                isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == wanted for s in other.body)
            for other in facts.classes.values()):
        return None
    saves = [s for s in facts.calls_to("torch.save") if saver.lineno <= s.node.lineno <= saver.end_lineno]
    if not saves or not all((value := s.argument(0, "obj")) is not None and cpu_data(model, value, s.node)
                            for s in saves):
        return None
    return f"{klass.name}.{wanted}" if klass is not None else wanted


# Methods whose result stays on the device of their receiver.
_SAME_DEVICE = frozenset(("clone", "detach", "half", "float", "double", "bfloat16", "contiguous", "numpy", "tolist"))


def cpu_data(model, value: ast.AST, save: Optional[ast.AST] = None, depth: int = 0) -> bool:
    """Does the saved value hold only CPU tensors, by what the code does to each one: `x.cpu()`,
    `x.to("cpu")` (then `.clone()`, `.half()`...), a dict literal of such values (or constants), a
    comprehension `{k: v.cpu() for k, v in sd.items()}`, or a name bound once to one, or to a dict whose
    every item the function replaces before the save (`for k, v in sd.items(): sd[k] = v.cpu()`)?"""
    if depth > 4:
        return False
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        attr = value.func.attr
        if attr == "cpu" and not value.args:
            return True
        if attr == "to" and len(value.args) + len(value.keywords) == 1 and \
                _is_cpu_literal((value.args or [k.value for k in value.keywords if k.arg == "device"] or [None])[0]):
            return True
        return attr in _SAME_DEVICE and cpu_data(model, value.func.value, save, depth + 1)
    if isinstance(value, ast.Dict):
        return None not in value.keys and all(isinstance(v, ast.Constant) or cpu_data(model, v, save, depth + 1)
                                              for v in value.values)
    if isinstance(value, ast.DictComp):
        return cpu_data(model, value.value, save, depth + 1)
    if isinstance(value, ast.Name):
        bound = model.reaching(value.id, value)
        if len(bound) != 1 or bound[0].kind != "assignment" or bound[0].index is not None or bound[0].value is None:
            return False
        return cpu_data(model, bound[0].value, save, depth + 1) or (
            save is not None and _items_moved_to_cpu(model, value.id, bound[0], save))
    return False


def _is_cpu_literal(expr: Optional[ast.AST]) -> bool:
    if isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("device") and len(expr.args) == 1:
        expr = expr.args[0]
    return isinstance(expr, ast.Constant) and expr.value == "cpu"


def _items_moved_to_cpu(model, name: str, binding, save: ast.AST) -> bool:
    """`for key, param in sd.items(): sd[key] = param.cpu()`, a statement of the block that holds the
    save, after `sd` is bound and before the save: every value of the dict is a CPU copy."""
    block = _block_of(model, save)
    if block is None or _stored_into(model, name, binding, save):
        return False
    for statement in block:
        if statement.lineno >= save.lineno:
            break
        if statement.lineno <= binding.line or not isinstance(statement, ast.For) or statement.orelse:
            continue
        target, it = statement.target, statement.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items"
                and not it.args and isinstance(it.func.value, ast.Name) and it.func.value.id == name
                and isinstance(target, ast.Tuple) and len(target.elts) == 2
                and all(isinstance(e, ast.Name) for e in target.elts)):
            continue
        key, item = (e.id for e in target.elts)
        for inner in statement.body:
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(sub := inner.targets[0], ast.Subscript) \
                    and isinstance(sub.value, ast.Name) and sub.value.id == name and isinstance(sub.slice, ast.Name) \
                    and sub.slice.id == key and _cpu_of(inner.value, item):
                return True
    return False


def _stored_into(model, name: str, binding, save: ast.AST) -> bool:
    """Is anything but the loop's copy put into the dict between its binding and the save
    (`sd[k] = v` of another value, `sd.update(...)`, `sd.setdefault(...)`)?"""
    function = model.function_of(save)
    for node in ast.walk(function if function is not None else model.tree):
        if not (binding.line < getattr(node, "lineno", 0) < save.lineno):
            continue
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in node.targets):
            parent = model.parent_of(node)
            if not (isinstance(parent, ast.For) and node in parent.body and len(node.targets) == 1
                    and isinstance(parent.target, ast.Tuple) and len(parent.target.elts) == 2
                    and isinstance(parent.target.elts[1], ast.Name) and _cpu_of(node.value, parent.target.elts[1].id)):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "update", "setdefault", "__setitem__") and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            return True
    return False


def _cpu_of(value: ast.AST, item: str) -> bool:
    """`param.cpu()`, `param.detach().cpu()`, `param.to("cpu")` of the loop's item."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SAME_DEVICE:
        value = value.func.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return False
    moved = value.func.attr == "cpu" and not value.args or value.func.attr == "to" and len(value.args) == 1 \
        and not value.keywords and _is_cpu_literal(value.args[0])
    receiver = value.func.value
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr in _SAME_DEVICE:
        receiver = receiver.func.value
    if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
        receiver = receiver.value
    return moved and isinstance(receiver, ast.Name) and receiver.id == item


def _block_of(model, node: ast.AST) -> Optional[list]:
    """The statement list that holds the statement holding `node`."""
    child, parent = node, model.parent_of(node)
    while parent is not None:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                return block
        child, parent = parent, model.parent_of(parent)
    return None


_TRT_MODULES = ("torch2trt.TRTModule", "torch2trt.torch2trt.TRTModule")


def _into_trt_module(facts: ScriptFacts, site: CallSite) -> bool:
    """`model_trt.load_state_dict(torch.load(trt_file))` with `model_trt = TRTModule()` of torch2trt: its
    state dict holds the engine as bytes and the input and output names."""
    if "TRTModule" not in facts.text:
        return False
    model = semantic_model(facts)
    parent = model.parent_of(site.node)
    if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "load_state_dict"
            and parent.args[:1] == [site.node]):
        return False
    built = model.value_of(parent.func.value)
    return isinstance(built, ast.Call) and model.resolve(built.func) in _TRT_MODULES


def _read_as_numpy(facts: ScriptFacts, site: CallSite) -> bool:
    """`torch.from_numpy(torch.load(p)[k])`, or `x = torch.load(p)` with every read of `x` such a call:
    from_numpy takes only numpy arrays (a tensor is a TypeError), so the file holds no tensor."""
    if not facts.calls_to("torch.from_numpy"):
        return False
    model = semantic_model(facts)

    def into_from_numpy(node: ast.AST) -> bool:
        parent = model.parent_of(node)
        while isinstance(parent, ast.Subscript) and parent.value is node:
            node, parent = parent, model.parent_of(parent)
        return isinstance(parent, ast.Call) and parent.args[:1] == [node] and not parent.keywords \
            and model.resolve(parent.func) == "torch.from_numpy"

    if into_from_numpy(site.node):
        return True
    bound = [b for b in model.names_bound_to("torch.load") if b.value is site.node and b.index is None]
    if len(bound) != 1 or bound[0].kind != "assignment":
        return False
    uses = model.uses_of(bound[0])
    return bool(uses) and all(isinstance(use, ast.Name) and into_from_numpy(use) for use in uses)


def _in_dataset(facts: ScriptFacts, site: CallSite) -> bool:
    klass = site.ctx.class_
    if klass is None or site.ctx.function is None:
        return False
    return any((facts.resolve(base) or "") in DATASETS for base in klass.bases)


def _cpu_saves(facts: ScriptFacts) -> tuple:
    """(file-name literals of `torch.save(x.cpu(), ...)`, {(id(function), path name)} of saves of
    data that is no model state)."""
    model = semantic_model(facts)
    literals, names = set(), set()
    for site in facts.calls_to("torch.save"):
        value, path = site.argument(0, "obj"), site.argument(1, "f")
        if value is None or path is None:
            continue
        if may_be_state(model.value_of(value)) and not plain_state_dict(facts, value, site.ctx) \
                and not saved_namespace(model, value) and not _fresh_cpu_model(model, value, site.node) \
                and not cpu_data(model, value, site.node):
            continue  # (what the name holds, not its name: `rng_states`)
        literals |= _file_names(path)
        if dotted(path):
            names.add((id(site.ctx.function), dotted(path)))
    return literals, names


_BUILT_ON_CPU = ("from_pretrained", "from_config")
_MOVES = ("to", "cuda", "to_empty", "prepare", "prepare_model")


def _fresh_cpu_model(model, value: ast.AST, save: ast.Call) -> bool:
    """`torch.save(model.embed_tokens, p)` where every value of `model` is built in the function by
    `from_pretrained` (without `device_map`) or `from_config`, and nothing moves it before the save
    (`.to()`, `.cuda()`, `accelerator.prepare`): its tensors are on the CPU."""
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root is value:
        return False
    values = model.values_of(root, hops=1)
    if not values or values == [root]:
        return False
    for built in values:
        while isinstance(built, ast.Call) and isinstance(built.func, ast.Attribute) and built.func.attr in ("merge_and_unload",):
            built = built.func.value
        if isinstance(built, ast.Name) and built.id == root.id:
            continue  # (`model = model.merge_and_unload()`: the same model, its other values decide)
        if not (isinstance(built, ast.Call) and isinstance(built.func, ast.Attribute) and built.func.attr in _BUILT_ON_CPU
                and not any(k.arg == "device_map" or k.arg is None for k in built.keywords)):
            return False
    function = model.parent_of(save)
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        function = model.parent_of(function)
    for node in ast.walk(function) if function is not None else ():
        if isinstance(node, ast.Call) and node.lineno < save.lineno and (
                isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES and (dotted(node.func.value) == root.id
                                                                                     or any(dotted(a) == root.id for a in node.args))):
            return False
    return True


def _file_names(path: ast.AST) -> set:
    """The string parts of a path expression that name a file (`"feats.pt"`, `"rng_state_"`), not an
    extension or a separator alone."""
    return {n.value for n in ast.walk(path) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and len(n.value.strip("./")) >= 4 and not n.value.startswith(".")}


def may_be_state(expr: ast.AST) -> bool:
    """May the saved value hold model state on a GPU (`model.state_dict()`, `{"model": net, ...}`,
    `ckpt`)? `x.cpu()`, RNG states (`torch.get_rng_state()`, CPU byte tensors) and an LR scheduler's
    `scheduler.state_dict()` (numbers) do not; a dict
    may when one of its values may."""
    if isinstance(expr, ast.Dict):
        return any(may_be_state(v) for v in expr.values if v is not None) or any(v is None for v in expr.values)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and (
            expr.func.attr == "cpu" or _RNG_GETTERS.match(expr.func.attr)):
        return False
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "state_dict" \
            and _SCHEDULER.search(dotted(expr.func.value) or ""):
        return False  # an LR scheduler's state: its step count and learning rates, Python numbers
    for node in ast.walk(expr):
        word = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if word and _STATE_WORDS.search(word):
            return True
    return False


# Annotations of a field that cannot hold a tensor; containers of them; `Any` inside a container
# only for a data loader's or sampler's state (positions, seeds, CPU generator states).
_SCALARS = frozenset(("int", "float", "str", "bool", "bytes", "complex", "None", "NoneType"))
_CONTAINERS = frozenset(("Optional", "Union", "list", "List", "tuple", "Tuple", "dict", "Dict", "set", "Set",
                         "frozenset", "FrozenSet", "Sequence", "Mapping"))
_LOADER_STATE = re.compile(r"data_?loader|sampler", re.IGNORECASE)


def plain_state_dict(facts: ScriptFacts, value: ast.AST, ctx) -> bool:
    """Is `value` `x.state_dict()` where `x` is an instance of a class of this module whose
    `state_dict()` returns a dict of tensor-free fields?"""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "state_dict"
            and not value.args and not value.keywords and isinstance(value.func.value, ast.Name)):
        return False
    klass = _instance_class(facts, value.func.value.id, ctx.function)
    return klass is not None and _fields_state_dict(facts, klass)


def _instance_class(facts: ScriptFacts, name: str, function) -> Optional[ast.ClassDef]:
    """The class of this module that `name` holds in `function`: a parameter annotated with it, or
    only ever bound to its constructor there (a subclass with a state_dict of its own: unknown)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    classes = set()
    arguments = function.args
    for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
        if arg.arg == name:
            classes.add(_class_named(facts, arg.annotation))
    stores = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
    bound = facts.assignments_to(name, function)
    if stores != len(bound):  # bound by a loop, a `with`, an unpacking: unknown
        return None
    for assignment in bound:
        value = assignment.value
        classes.add(_class_named(facts, value.func) if isinstance(value, ast.Call) else None)
    if len(classes) != 1 or None in classes:
        return None
    klass = classes.pop()
    if any(_class_named(facts, base) is klass for other in facts.classes.values() for base in other.bases):
        return None
    return klass


def _class_named(facts: ScriptFacts, expr: Optional[ast.AST]) -> Optional[ast.ClassDef]:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a forward reference
        return facts.classes.get(expr.value)
    if isinstance(expr, ast.Name) and facts.resolve(expr) is None:  # not an imported name
        return facts.classes.get(expr.id)
    return None


def _fields_state_dict(facts: ScriptFacts, klass: ast.ClassDef) -> bool:
    """Does `klass.state_dict()` return a dict literal of `self` fields, each annotated in the class
    body with a tensor-free type?"""
    annotations = {s.target.id: s.annotation for s in klass.body
                   if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    method = next((s for s in klass.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and s.name == "state_dict"), None)
    if method is None or not method.args.args:
        return False
    body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Dict):
        return False
    result, self_name = body[0].value, method.args.args[0].arg
    if None in result.keys:  # `**other`
        return False
    for item in result.values:
        if isinstance(item, ast.Constant):
            continue
        if not (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == self_name
                and item.attr in annotations and _tensor_free(annotations[item.attr], item.attr)):
            return False
    return True


def _tensor_free(annotation: ast.AST, field: str, inside: bool = False) -> bool:
    if isinstance(annotation, ast.Constant):  # (a quoted annotation: unknown)
        return annotation.value is None or annotation.value is Ellipsis
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):  # `int | None`
        return _tensor_free(annotation.left, field, inside) and _tensor_free(annotation.right, field, inside)
    if isinstance(annotation, ast.Subscript):
        base = _last_name(annotation.value)
        if base == "Literal":
            return True
        if base not in _CONTAINERS:
            return False
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return all(_tensor_free(p, field, inside=True) for p in parts)
    name = _last_name(annotation)
    if name == "Any" or name == "object":
        return inside and bool(_LOADER_STATE.search(field))
    return name in _SCALARS


def _last_name(expr: ast.AST) -> Optional[str]:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None
