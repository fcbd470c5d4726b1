"""DeepSpeed and accelerate setups that a project function of another module builds for the script.

- `def build_engine(model, args): deepspeed.initialize(args=args, ...)` (no `config=`): the namespace a
  caller passes for `args` carries the config path (deepspeed/__init__.py initialize reads
  `args.deepspeed_config`), so the script's --deepspeed_config option is the config
  (FunctionSummary.deepspeed_args).
- `def build_accelerator(): return Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=2, ...))`: the
  plugin's keywords, parameters of the function left for the caller's arguments to bind
  (FunctionSummary.returns_plugin).

The module summaries state these per function; the script records its calls of imported names
(HelperCall); the linker joins the two (`helper_links.helper_config_ref`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional

from ..model import Span
from ..sources.names import dotted, is_library, root_name
from .config_dicts import NotLiteral, Param

PLUGINS = ("accelerate.utils.DeepSpeedPlugin", "accelerate.DeepSpeedPlugin",
           "accelerate.utils.dataclasses.DeepSpeedPlugin")
ACCELERATORS = ("accelerate.Accelerator", "accelerate.accelerator.Accelerator")
_ARGS_FIELDS = ("deepspeed_config", "deepscale_config")  # what initialize reads of `args`
# Accelerator methods a training script calls on the one it builds or gets
_ACCELERATOR_USES = ("prepare", "backward", "accumulate", "unwrap_model", "wait_for_everyone", "gather_for_metrics",
                     "prepare_model", "autocast", "clip_grad_norm_", "save_state")


@dataclass(frozen=True)
class HelperCall:
    """A call in the script of a name bound by an import of a project module (`build_engine(model, args)`)."""

    local: str  # as called: `build_engine`, `engine.build_engine`
    span: Span
    arguments: tuple  # positional values: literals, NotLiteral otherwise
    keywords: tuple  # (name, value), ...
    namespaces: tuple  # (position, keyword) of the arguments that are the script's parse_args() namespace
    skipped: bool  # the call may not run when its function does (program_effects.may_not_run)


# -- module summaries ---------------------------------------------------------------------------
def deepspeed_args_param(facts, model, function: ast.AST, calls: list) -> Optional[tuple]:
    """(parameter, dest) when every `deepspeed.initialize` of `function` takes its config from the parameter's
    field `dest`: `args=<param>` with no config of its own (initialize reads `args.deepspeed_config`), or
    `config=<param>.<dest>` with no `args=`; each call runs whenever the function does, and nothing sets the
    field (`args.deepspeed_config = ...`, `setattr(args, ...)`)."""
    from .program_effects import may_not_run

    sites = [site for site in calls if site.qualname == "deepspeed.initialize"]
    if not sites:
        return None
    found = set()
    for site in sites:
        node = site.node
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args) \
                or len(node.args) > 2 or may_not_run(facts, site):
            return None  # (config= is initialize's 11th parameter: two positional arguments are args and model)
        given = [k.value for k in node.keywords if k.arg in ("config", "config_params")]
        passed = site.argument(0, "args")
        if given:
            if len(given) > 1 or passed is not None or not isinstance(given[0], ast.Attribute):
                return None
            passed, dest = given[0].value, given[0].attr
        else:
            dest = "deepspeed_config"
        binding = model.binding_of(passed) if isinstance(passed, ast.Name) else None
        if binding is None or binding.kind != "parameter" or binding.scope.node is not function:
            return None
        found.add((passed.id, dest))
    if len(found) != 1:
        return None
    param, dest = found.pop()
    for attr in {dest, *_ARGS_FIELDS}:
        if any(isinstance(store.value, ast.Name) and store.value.id == param for store in model.attribute_stores(attr)):
            return None
    for site in calls:
        if site.attr in ("setattr", "vars") and site.node.args and isinstance(site.node.args[0], ast.Name) \
                and site.node.args[0].id == param:
            return None
    return param, dest


def returned_plugin(model, lines, function: ast.AST, calls: list, returns: list) -> Optional[tuple]:
    """(Span of the DeepSpeedPlugin call, ((field, value, Span of `field=value`), ...)) when the function's one
    `return` gives `Accelerator(deepspeed_plugin=DeepSpeedPlugin(<keywords>))` (the plugin inline or bound to a
    name once, its keywords maybe through `**` of a dict the module shows: facts/keyword_splats.py); a value
    is a literal, a Param, or NotLiteral. None for a plugin that reads a config (`hf_ds_config`), with
    positional arguments, or with `**` of keys not known."""
    if len(returns) != 1 or not any(site.qualname in ACCELERATORS for site in calls):
        return None
    made = model.value_of(returns[0].value)
    if not isinstance(made, ast.Call) or model.resolve(made.func) not in ACCELERATORS:
        return None
    passed = next((k.value for k in made.keywords if k.arg == "deepspeed_plugin"), None)
    plugin = model.value_of(passed) if passed is not None else None
    if not isinstance(plugin, ast.Call) or model.resolve(plugin.func) not in PLUGINS or plugin.args:
        return None
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    keywords = []
    if any(kw.arg is None for kw in plugin.keywords):  # `DeepSpeedPlugin(**PLUGIN_KW)`: a dict this module shows
        from .keyword_splats import call_keywords

        values, spans, is_open = call_keywords(model, plugin, lambda expr: expr, None, lines.span_of_node).merged()
        if is_open or "hf_ds_config" in values or not all(isinstance(v, ast.AST) for v in values.values()):
            return None
        return lines.span_of_node(plugin), tuple((name, _plugin_value(model, value, function, params), spans[name])
                                                 for name, value in values.items())
    for kw in plugin.keywords:
        if kw.arg == "hf_ds_config":
            return None
        keywords.append((kw.arg, _plugin_value(model, kw.value, function, params), lines.span_of_node(kw)))
    return lines.span_of_node(plugin), tuple(keywords)


def _plugin_value(model, expr: ast.AST, function: ast.AST, params: set) -> Any:
    """A literal, a Param (the caller binds it), else a NotLiteral."""
    value = _literal(expr)
    if isinstance(value, NotLiteral) and isinstance(expr, ast.Name) and expr.id in params:
        binding = model.binding_of(expr)
        if binding is not None and binding.kind == "parameter" and binding.scope.node is function:
            return Param(expr.id)
    return value


# -- the script's calls -----------------------------------------------------------------------------
def helper_calls(facts, semantic, namespaces: bool) -> tuple:
    """HelperCall of the calls of imported project names in the script that a helper's setup may come from:
    those whose value is bound (`accelerator = build_accelerator()`) and, with `namespaces`, those passing
    the script's parse_args() namespace (`semantic()`: the module's SemanticModel). Arguments: their
    literal values."""
    from .values import is_namespace

    out, seen = [], set()
    if namespaces:
        for site in facts.calls:
            node = site.node
            if (any(isinstance(a, ast.Name) for a in node.args) or any(isinstance(k.value, ast.Name)
                                                                       for k in node.keywords)) \
                    and _project_call(facts, node):
                model = semantic()
                given = [(p, None, a) for p, a in enumerate(node.args)] + [(None, k.arg, k.value) for k in node.keywords]
                spaces = tuple((p, k) for p, k, a in given if isinstance(a, ast.Name) and is_namespace(model, a))
                if spaces:
                    out.append(_helper_call(facts, node, site.ctx, spaces))
                    seen.add(id(node))
    # (an Accelerator is used in the script that gets it: most modules use none, and this runs on every module)
    if not any(facts.method_calls(method) for method in _ACCELERATOR_USES):
        return tuple(out)
    for assigned in facts.assignments:
        node = assigned.value
        if isinstance(node, ast.Call) and id(node) not in seen and _project_call(facts, node) and \
                not (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)[:1].isupper():
            out.append(_helper_call(facts, node, assigned.ctx, ()))  # (a class's call runs no factory)
    return tuple(out)


def _project_call(facts, node: ast.Call) -> bool:
    """A call of a name an import of a project module binds, with no `*`/`**` (the import table's view)."""
    root = root_name(node.func)
    names = facts.imports.names
    if root is None or root.id not in facts.imports.relative and (
            root.id not in names or is_library(names[root.id])):
        return False
    return not any(isinstance(a, ast.Starred) for a in node.args) and not any(k.arg is None for k in node.keywords)


def _helper_call(facts, node: ast.Call, ctx, spaces: tuple) -> HelperCall:
    from .program_effects import may_not_run

    return HelperCall(local=dotted(node.func), span=facts.lines.span_of_node(node),
                      arguments=tuple(_literal(a) for a in node.args),
                      keywords=tuple((k.arg, _literal(k.value)) for k in node.keywords),
                      namespaces=spaces, skipped=may_not_run(facts, _At(node, ctx)))


@dataclass(frozen=True)
class _At:
    node: ast.Call
    ctx: Any  # (may_not_run reads only the call and its context)


def _literal(arg: ast.AST) -> Any:
    try:
        return ast.literal_eval(arg)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NotLiteral(ast.unparse(arg)[:60])
