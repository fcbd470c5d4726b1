"""Which object an expression is, and which calls of this module reach a def.

- `object_of(model, expr)`: the object an expression is, as a key that two expressions share
  when they are the same object (`teacher`, `teacher.to(device).eval()`, `self.teacher` set in
  `__init__` from it, `ddp.module` of a DDP binding); None when several objects may reach it.
- `same_object(model, a, b)`: both expressions are one known object.
- `self_class(model, expr)`: the class when `expr` is the `self` of one of its methods.
- `calls_of(model, function)`: the calls of a def in its module (`f(...)`, `self.f(...)`,
  `Cls(...)` for `__init__`), each with how many arguments it leaves out in front.
- `arguments_for(model, function, parameter)`: what those calls pass for one parameter, and
  `object_with_arguments(model, key)`: a parameter's object together with the objects passed for it.
- `passed_on(model, function)`: the def is referenced other than by calling it (a callback).
- `callee_name(model, expr)`: the qualified name of an imported callee, or the name of the def
  of this module it is bound to.
- `module_name_at(model, qualname, at)`: a name that is the imported module `qualname` at `at`.
- `class_lineage(model, cls)`: the class and the classes of this module it derives from.

Everything is read through the bindings model (`facts/bindings.py`), so a parameter that shadows
a global is not the global, and `model = DDP(model)` reaches the later `model.module`.
"""
from __future__ import annotations

import ast
from typing import NamedTuple, Optional, Union

from .bindings import Binding, SemanticModel

# An object's key: the call that built it (`Net()`, `DDP(net)`), the binding it comes from when
# its value cannot be followed (a parameter, an import, a def, a loop variable), `("self", class,
# attr)` for an attribute of `self` whose value cannot be told, `("attr", key, attr)` for an
# attribute of another object.
ObjectKey = Union[ast.Call, Binding, tuple]

# Module methods that return the module itself: `teacher.to(device).eval()` is still the teacher.
SAME_OBJECT_METHODS = frozenset(("to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16",
                                 "requires_grad_"))
_CYCLE = object()  # a path that came back to an expression already on it
_MAX_STEPS = 12
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def object_of(model: SemanticModel, expr: ast.AST) -> Optional[ObjectKey]:
    """The object `expr` is, as a key (see `ObjectKey`): followed through the bindings that reach
    a name (in enclosing scopes too), `self.x` assigned in `__init__`/`setup`, the methods that
    return the module itself (`.to()`, `.cuda()`, `.eval()`, `.requires_grad_()`, ...) and DDP's
    `.module` (`ddp.module` is `ddp`). None when several objects may reach it, when it is no
    name, attribute or call, or when the path only goes round in a circle."""
    key = _object_of(model, expr, frozenset())
    return None if key is _CYCLE else key


def _object_of(model: SemanticModel, expr: ast.AST, seen: frozenset):
    if id(expr) in seen:
        return _CYCLE
    if len(seen) > _MAX_STEPS:
        return None
    seen = seen | {id(expr)}
    if isinstance(expr, ast.Attribute):
        cls = self_class(model, expr.value)
        if cls is not None:
            value = model.value_of(expr, hops=1)
            return ("self", cls, expr.attr) if value is expr else _object_of(model, value, seen)
        base = _object_of(model, expr.value, seen)
        if expr.attr == "module" or base is None or base is _CYCLE:
            return base
        return ("attr", base, expr.attr)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in SAME_OBJECT_METHODS:
            return _object_of(model, func.value, seen)
        return expr
    if not isinstance(expr, ast.Name):
        return None
    keys = set()
    for value in model.values_of(expr, hops=1):
        if value is expr:
            found = model.reaching(expr.id, expr)
            keys.add(found[0] if len(found) == 1 else None)
        else:
            keys.add(_object_of(model, value, seen))
    keys.discard(_CYCLE)
    return keys.pop() if len(keys) == 1 else None


def same_object(model: SemanticModel, a: ast.AST, b: ast.AST) -> bool:
    """`a` and `b` are one object, and which one is known (`object_of` of both, not None)."""
    key = object_of(model, a)
    return key is not None and key == object_of(model, b)


def self_class(model: SemanticModel, expr: ast.AST) -> Optional[ast.ClassDef]:
    """The class when `expr` is the first parameter (`self`) of one of its methods (not of a
    static or class method), else None."""
    binding = model.binding_of(expr) if isinstance(expr, ast.Name) else None
    if binding is None or binding.kind != "parameter" or binding.position != 0:
        return None
    method, cls = binding.scope.node, binding.scope.parent
    if cls is None or cls.kind != "class" or _is_static(method):
        return None
    return cls.node


def _is_static(function: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
               for d in getattr(function, "decorator_list", ()))


class CallOf(NamedTuple):
    """A call of a def, and how many of the def's positional parameters it leaves out in front
    (1 for `self.f(...)` and `Cls(...)`: `self` is not among its arguments)."""

    node: ast.Call
    skipped: int


def calls_of(model: SemanticModel, function: ast.AST) -> list[CallOf]:
    """The calls of a def in its module: `f(...)` where the name reaches the def, `self.f(...)`
    in its class for a method, `Cls(...)` for `__init__`. Empty for a lambda."""
    if not isinstance(function, _FUNCTIONS):
        return []
    facts = model.facts
    outer = model.scope_of(function)
    sites = facts.method_calls(function.name)
    if outer.kind != "class":
        return [CallOf(s.node, 0) for s in sites if _binds_to(model, s.node.func, function)]
    cls = outer.node
    skipped = 0 if _is_static(function) else 1
    calls = [CallOf(s.node, skipped) for s in sites
             if isinstance(s.node.func, ast.Attribute) and self_class(model, s.node.func.value) is cls]
    if function.name == "__init__":
        calls += [CallOf(s.node, 1) for s in facts.method_calls(cls.name) if _binds_to(model, s.node.func, cls)]
    return calls


def _binds_to(model: SemanticModel, expr: ast.AST, definition: ast.AST) -> bool:
    """`expr` is a name whose one reaching binding is `definition` (a def or class)."""
    if not isinstance(expr, ast.Name):
        return False
    found = model.reaching(expr.id, expr)
    return len(found) == 1 and found[0].node is definition


def arguments_for(model: SemanticModel, function: ast.AST, parameter: str) -> list[tuple[ast.Call, ast.expr]]:
    """(call, the expression it passes) for each call of the def (`calls_of`) that passes
    something for `parameter`, positionally or by keyword; a call whose `*args` may hold it is
    left out, and so is every call for `*args`/`**kwargs` parameters."""
    if not isinstance(function, _FUNCTIONS):
        return []
    binding = next((b for b in model.own_scope(function).bindings.get(parameter, ()) if b.kind == "parameter"), None)
    if binding is None:
        return []
    keyword_only = any(a is binding.node for a in function.args.kwonlyargs)
    if binding.position is None and not keyword_only:
        return []
    out = []
    for call, skipped in calls_of(model, function):
        keyword = next((k.value for k in call.keywords if k.arg == parameter), None)
        if keyword_only:
            given = keyword
        else:
            index = binding.position - skipped
            given = call.args[index] if 0 <= index < len(call.args) else keyword
            if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                given = None
        if given is not None:
            out.append((call, given))
    return out


def object_with_arguments(model: SemanticModel, key: ObjectKey) -> tuple[set, set[ast.Call]]:
    """The object `key`, plus, when it is a parameter of a def of this module, the objects that
    the calls of the def pass for it (a helper's `model` counts as the models it is called
    with); and those calls. Unknown objects (None) are left out."""
    keys, calls = {key}, set()
    if isinstance(key, Binding) and key.kind == "parameter":
        for call, given in arguments_for(model, key.scope.node, key.name):
            keys.add(object_of(model, given))
            calls.add(call)
    keys.discard(None)
    return keys, calls


def passed_on(model: SemanticModel, function: ast.AST) -> bool:
    """The def is referenced other than by calling it (a callback, a hook, `x.f` handed on):
    who runs it, and how, is unknown."""
    facts = model.facts
    called = {id(site.node.func) for site in facts.method_calls(function.name)}
    for node, _ in facts.of_type(ast.Attribute):
        if node.attr == function.name and isinstance(node.ctx, ast.Load) and id(node) not in called:
            return True
    outer = model.scope_of(function)
    if outer.kind == "class":
        return False
    own = [b for b in outer.bindings.get(function.name, ()) if b.node is function]
    return any(id(use) not in called for b in own for use in model.uses_of(b))


def callee_name(model: SemanticModel, expr: ast.AST) -> str:
    """The canonical qualified name of an imported callee (`torch.no_grad` for `no_grad()` after
    `from torch import no_grad`), else the name of the def of this module it is bound to
    (`smart_inference_mode` for `@smart_inference_mode()`), else "". A call is read as its callee."""
    if isinstance(expr, ast.Call):
        expr = expr.func
    name = model.resolve(expr)
    if name:
        return name
    binding = model.binding_of(expr) if isinstance(expr, ast.Name) else None
    return binding.node.name if binding is not None and binding.kind == "def" else ""


def module_name_at(model: SemanticModel, qualname: str, at: ast.AST) -> Optional[str]:
    """A name that is the module `qualname` where `at` runs: imported at module level with
    `import qualname [as name]`, and every binding of it that reaches `at` is that import (a
    fix that writes `torch.no_grad()` there needs it); None when there is none."""
    for name, bindings in model.module.bindings.items():
        if any(b.kind == "import" and b.qualname == qualname for b in bindings):
            found = model.reaching(name, at)
            if found and all(b.kind == "import" and b.qualname == qualname for b in found):
                return name
    return None


def class_lineage(model: SemanticModel, cls: ast.ClassDef, depth: int = 4) -> list[ast.ClassDef]:
    """`cls`, then the classes of this module it derives from (a base name whose one binding is
    a class statement), breadth first, each once, at most `depth` generations in all."""
    out, level = [cls], [cls]
    for _ in range(depth - 1):
        parents = []
        for child in level:
            for base in child.bases:
                binding = model.binding_of(base) if isinstance(base, ast.Name) else None
                if binding is not None and binding.kind == "class" and all(binding.node is not c for c in out):
                    out.append(binding.node)
                    parents.append(binding.node)
        level = parents
    return out
