"""Config objects handed to project functions: `loader = build_train_loader(DataConfig())`.

A factory in another module reads `cfg.workers`; what that is depends on the instance its callers
pass. This module's summary says, for each call of an imported name, which arguments are a fresh
instance of a project class (`cfg = DataConfig()`, no positional arguments) and which fields the
caller may have changed since (keywords given to the constructor, `cfg.workers = 4`, `setattr`):
the linker then reads the class's default (`program_callers.instance_field_defaults`).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..sources.names import dotted, root_name
from .bindings import semantic_model
from .values import only_field_reads
from .script import ScriptFacts
from .summary import summary_extractor

ANY_FIELD = "*"  # the caller may have set any field (`**overrides`, `setattr`, `vars(cfg).update`)
FACTORY_PREFIX = "@"  # "@from_args": built by that classmethod (ClassSummary.factory_fields says which fields it sets)


@summary_extractor("instance_arguments")
def instance_arguments(facts: ScriptFacts) -> dict:
    """local name called -> ((slot, class as written here, fields the caller may have set), ...) per
    argument that is a fresh instance of a project class; slot is the position (int) or keyword (str).
    A call that passes none is not listed."""
    if not facts.imports.project_names():
        return {}
    found: dict = {}
    model = None
    for site in facts.calls:
        if not site.calls_project_name(facts.imports):
            continue
        node = site.node
        slots = [(i, a) for i, a in enumerate(node.args)]
        slots = slots[:next((i for i, a in slots if isinstance(a, ast.Starred)), len(slots))]
        slots += [(k.arg, k.value) for k in node.keywords if k.arg is not None]
        model = model or semantic_model(facts)
        given = tuple(filter(None, (_instance(model, facts, slot, arg) for slot, arg in slots)))
        if given:
            found.setdefault(site.local_name, []).append(given)
    return {local: tuple(calls) for local, calls in found.items()}


def _instance(model, facts: ScriptFacts, slot, arg: ast.AST) -> Optional[tuple]:
    built = model.value_of(arg) if isinstance(arg, ast.Name) else arg
    if not isinstance(built, ast.Call) or not dotted(built.func):
        return None
    replaced: set = set()
    if model.resolve(built.func) == "dataclasses.replace" and len(built.args) == 1:
        # `dataclasses.replace(TrainConfig(), epochs=args.epochs)`: a fresh instance with those fields set
        replaced = {k.arg or ANY_FIELD for k in built.keywords}
        built = built.args[0]
        if not isinstance(built, ast.Call) or not dotted(built.func):
            return None
    func, fields = built.func, {k.arg or ANY_FIELD for k in built.keywords} | replaced
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr[:1].islower():
        # `FSDPConfig.from_args(args)`: a classmethod of the class (the linker checks it is one and reads
        # which fields it sets); `configs.DataConfig()` is a class of a module
        func, fields = func.value, {FACTORY_PREFIX + func.attr}
    elif built.args:
        return None
    root = root_name(func)
    binding = model.binding_of(root) if root is not None else None
    if binding is None or not (binding.kind == "class" and isinstance(func, ast.Name)
                               or binding.kind in ("import", "from-import") and root.id in facts.imports.project_names()):
        return None
    if isinstance(arg, ast.Name):
        changed = _changed_fields(model, facts, arg)
        if changed is None:
            return None
        fields |= changed
    return slot, dotted(func), tuple(sorted(fields))


def _changed_fields(model, facts: ScriptFacts, name: ast.Name) -> Optional[set]:
    """The fields of the instance `name` holds that this module may set: attribute stores on the same
    spelling, `setattr`/`vars(...).update`; None when it is used any other way than reading a field or
    passing it to a project function (a library call may fill it: `parser.parse_args(namespace=cfg)`)."""
    binding = model.binding_of(name)
    if binding is None:
        return None
    changed = set()
    for use in model.uses_of(binding):
        parent = model.parent_of(use)
        if isinstance(parent, ast.Attribute):
            if not isinstance(parent.ctx, ast.Load):
                changed.add(parent.attr)
            elif isinstance(model.parent_of(parent), ast.Call) and model.parent_of(parent).func is parent:
                return None  # (a method of the config may set anything)
            continue
        call = model.parent_of(parent) if isinstance(parent, ast.keyword) else parent
        if not isinstance(call, ast.Call) or use is call.func:
            return None
        callee = dotted(call.func) or ""
        if callee in ("setattr", "vars"):
            changed.add(ANY_FIELD)
            continue
        if callee in facts.functions and _only_reads_fields(model, facts.functions[callee], call, use):
            continue  # `cosine_lr(epoch, cfg)` of this module, reading `cfg.lr`
        if callee.split(".", 1)[0] not in facts.imports.project_names():
            return None
    return changed


def _only_reads_fields(model, function: ast.AST, call: ast.Call, use: ast.AST) -> bool:
    """Does the function of this module only read attributes of the parameter `use` is passed as?"""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    if use in call.args:
        index = call.args.index(use)
        if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]) or index >= len(params):
            return False
        name = params[index]
    else:
        name = next((k.arg for k in call.keywords if k.value is use), None)
    binding = next((b for b in model.own_scope(function).bindings.get(name, ()) if b.kind == "parameter"), None) \
        if name else None
    return binding is not None and only_field_reads(model, binding)


def config_parameter_field(model, facts: ScriptFacts, expr) -> Optional[tuple]:
    """(function, position, parameter, field) for `cfg.field` where `cfg` is a positional parameter of a
    module-level function that this module never calls, and that the function only reads fields of (method
    calls included): what the field holds is what the callers' instance holds (program_callers.
    instance_field_default); None otherwise."""
    if not isinstance(expr, ast.Attribute) or not isinstance(expr.value, ast.Name):
        return None
    binding = model.binding_of(expr.value)
    if binding is None or binding.kind != "parameter" or binding.position is None:
        return None
    function, position = binding.scope.node, binding.position
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    owner = next((c for c in facts.tree.body if isinstance(c, ast.ClassDef) and function in c.body), None) \
        if function.name == "__init__" else None
    if owner is not None and position > 0:  # `Trainer(cfg, ...)`: the class's callers pass what __init__ reads
        function, position = owner, position - 1
    elif function not in facts.tree.body:
        return None
    defined = model.own_scope(facts.tree).bindings.get(function.name, [])
    if len(defined) != 1 or model.uses_of(defined[0]):
        return None  # (called here too: those calls are not read)
    # (in __init__, `self.cfg = cfg` keeps the instance: nothing can change it before a read there)
    if not only_field_reads(model, binding, methods=True, kept_on_self=owner is not None):
        return None
    return function.name, position, binding.name, expr.attr
