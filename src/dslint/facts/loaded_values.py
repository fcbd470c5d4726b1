"""What the value a `torch.load` reads goes on to be, or what a `torch.save` writes, where that shows
the file holds no GPU tensor.

- A data loader's or sampler's state: `sampler.load_state_dict(torch.load(p))` in a module that saves
  `sampler.state_dict()` (or `sampler.state_dict(step)`; the same receiver), or `sampler_state = torch.load(p)` in a module that
  saves a name `sampler_state` bound to `train_dl.sampler.state_dict()`. A sampler's state is positions,
  seeds and CPU generator states (the receiver is named, or built by a class named, after a sampler
  or a data loader).
- What a function returns under an annotation that holds no tensor: `def load_ali(f) ->
  Tuple[int, Dict[str, List[int]]]: d = torch.load(f); return d["factor"], d["ali"]` (every read of
  the loaded value, or of a name bound to an item of it, is in a `return`).
- A command-line namespace saved: `torch.save(args, d / "args.pth")` where every value `args` may
  hold is `parser.parse_args()` (through names, and the parameter of a module function that every
  call passes one), `vars()` of one, or `argparse.Namespace(...)` of constants: options, no tensor
  (unless the module stores a tensor into one of its fields).
"""
from __future__ import annotations

import ast
import re

from ..sources.names import dotted
from .bindings import semantic_model
from .script import CallSite, ScriptFacts, literal
from .values import is_namespace

# The last name of an object that holds a sampler or a data loader (`train_dl.sampler`, `BucketSampler(...)`,
# `train_loader`, a torchdata `StatefulDataLoader`).
_LOADERS = re.compile(r"data_?loader|sampler|(^|_)(loader|dl)$", re.IGNORECASE)


def restored_loader_state(facts: ScriptFacts, site: CallSite) -> bool:
    """Is the loaded value a loader's or sampler's state that the module itself saves (see above)?"""
    saves = facts.calls_to("torch.save")
    if not saves:
        return False
    model = semantic_model(facts)
    parent = model.parent_of(site.node)
    receiver = target = None
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "load_state_dict" \
            and parent.args == [site.node] and not parent.keywords:
        receiver = dotted(parent.func.value)
    elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        target = parent.targets[0].id
    if receiver is None and target is None:
        return False
    for save in saves:
        value = save.argument(0, "obj")
        if value is None:
            continue
        state = model.value_of(value)
        if not (isinstance(state, ast.Call) and isinstance(state.func, ast.Attribute) and state.func.attr == "state_dict"):
            continue  # (`sampler.state_dict(step)`: a resumable sampler's state at a step is still its state)
        owner = state.func.value
        same = (receiver is not None and dotted(owner) == receiver) or (
            target is not None and isinstance(value, ast.Name) and value.id == target)
        if same and _names_a_loader(model, owner):
            return True
    return False


def _names_a_loader(model, owner: ast.AST) -> bool:
    name = dotted(owner) or ""
    if _LOADERS.search(name.rsplit(".", 1)[-1]):
        return True
    built = model.value_of(owner)
    return isinstance(built, ast.Call) and bool(_LOADERS.search((dotted(built.func) or "").rsplit(".", 1)[-1]))


def returned_tensor_free(facts: ScriptFacts, site: CallSite, tensor_free) -> bool:
    """Does the loaded value only flow into the `return` of a function annotated to return a type
    that holds no tensor? `tensor_free(annotation)` says whether a type does."""
    function = site.ctx.function
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.returns is None:
        return False
    if not tensor_free(function.returns):
        return False
    model = semantic_model(facts)
    return _only_returned(model, site.node, function, 0)


def _only_returned(model, node: ast.AST, function: ast.AST, depth: int) -> bool:
    """Is `node` read only inside `return` statements of `function`, directly, as an item
    (`d["k"]`), or through a name bound to it (or to an item of it) and read only so?"""
    child, parent = node, model.parent_of(node)
    while isinstance(parent, (ast.Subscript, ast.Tuple)) and (not isinstance(parent, ast.Subscript) or parent.value is child):
        child, parent = parent, model.parent_of(parent)
    if isinstance(parent, ast.Return):
        return True
    if depth > 2 or not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                         and isinstance(parent.targets[0], ast.Name) and parent.value is child):
        return False
    bindings = [b for b in model._bindings_of_statement(parent) if b.name == parent.targets[0].id]
    if len(bindings) != 1 or bindings[0].index is not None:
        return False
    uses = model.uses_of(bindings[0])
    return bool(uses) and all(_only_returned(model, use, function, depth + 1) for use in uses)


def saved_namespace(model, value: ast.AST) -> bool:
    """Is the value a `torch.save` writes a command-line namespace (see above)?"""
    values = model.values_of(value)
    if not values or not all(_namespace_like(model, v) for v in values):
        return False
    if not isinstance(value, ast.Name):
        return True
    # `args.mean = torch.tensor(...)`: a field may hold a tensor (matched by the name's spelling)
    for node, _ in model.facts.of_type(ast.Attribute):
        if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == value.id:
            stored = model.parent_of(node)
            if not isinstance(stored, (ast.Assign, ast.AnnAssign)) or _may_make_tensor(model, stored.value):
                return False
    return True


def _namespace_like(model, value: ast.AST) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "vars" \
            and len(value.args) == 1 and not value.keywords and model.binding_of(value.func) is None:
        return is_namespace(model, value.args[0])
    if isinstance(value, ast.Attribute) and value.attr == "__dict__":
        return is_namespace(model, value.value)
    if isinstance(value, ast.Call) and model.resolve(value.func) == "argparse.Namespace":
        return not value.args and all(isinstance(k.value, ast.Constant) or literal(k.value) is not None
                                      or (k.arg is None and _namespace_like(model, k.value)) for k in value.keywords)
    return is_namespace(model, value)


def _may_make_tensor(model, expr) -> bool:
    """Might a field stored `expr` be a tensor: a call into torch (but `torch.device`), or `.to()`/`.cuda()`?"""
    if expr is None:
        return True
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            name = model.resolve(node.func) or ""
            if (name.startswith("torch.") and name != "torch.device") or (
                    isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda")):
                return True
    return False
