"""16-bit weight saves that a project function of another module makes on an object the script passes it.

`def export_fp16(engine, out): engine.save_16bit_model(out)` in export_utils.py, called by the script as
`export_fp16(engine, args.output_dir)` with `engine` the first value `deepspeed.initialize` returned: the
script saves 16-bit weights as surely as when it calls `engine.save_16bit_model` itself
(script_setup.read_saves). Each module's summary states

- `"weight_saves"`: per top-level function, the saves it makes on a parameter (param, position, what,
  Span), what as script_setup.WeightSave;
- `"weight_save_calls"`: its calls of imported project names that pass a DeepSpeed engine, an Accelerator
  or an HF Trainer it built: (local name, Span of the call, ((position, keyword, kind), ...)).

`helper_weight_saves` joins the two in the project phase.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..model import Span
from .distributed import ACCELERATOR, HF_TRAINERS
from .summary import summary_extractor

# the save method -> (what script_setup.WeightSave calls it, the kind of object it is a method of)
SAVE_METHODS = {"save_16bit_model": ("save_16bit_model", "engine"), "save_fp16_model": ("save_fp16_model", "engine"),
                "get_state_dict": ("accelerator.get_state_dict", "accelerator"),
                "save_model": ("trainer.save_model", "hf-trainer")}
_INITIALIZE = "deepspeed.initialize"


@dataclass(frozen=True)
class HelperSave:
    path: str  # the module holding the save
    span: Span  # the save call there
    what: str  # as script_setup.WeightSave.what
    call_span: Span  # the script's call of the helper


@summary_extractor("weight_saves")
def weight_saves(facts) -> dict:
    """function name -> ((param, position, what, Span), ...) of the saves each top-level function makes
    on one of its own parameters (`engine.save_16bit_model(...)`)."""
    return _param_saves(facts)


@summary_extractor("weight_save_calls")
def weight_save_calls(facts) -> tuple:
    """(local, Span, ((position, keyword, kind), ...)) of the module's calls of imported project names that
    pass a name bound to a DeepSpeed engine, an Accelerator or an HF Trainer the module builds."""
    return _calls_passing_objects(facts)


def _param_saves(facts) -> dict:
    sites = [site for method in SAVE_METHODS for site in facts.method_calls(method)
             if isinstance(site.node.func, ast.Attribute) and isinstance(site.node.func.value, ast.Name)]
    if not sites:
        return {}
    top = {id(stmt): stmt for stmt in facts.tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict = {}
    for site in sites:
        function = top.get(id(site.ctx.function))
        if function is None:
            continue
        receiver = site.node.func.value.id
        params = function.args.posonlyargs + function.args.args
        position = next((i for i, a in enumerate(params) if a.arg == receiver), None)
        if position is None and receiver not in {a.arg for a in function.args.kwonlyargs}:
            continue
        from .bindings import semantic_model

        found = semantic_model(facts).reaching(receiver, site.node.func.value)
        if len(found) != 1 or found[0].kind != "parameter":
            continue  # (rebound inside the function: not the caller's object)
        what = SAVE_METHODS[site.attr][0]
        out.setdefault(function.name, []).append((receiver, position, what, facts.lines.span_of_node(site.node)))
    return {name: tuple(saves) for name, saves in out.items()}


def _calls_passing_objects(facts) -> tuple:
    makers = facts.calls_to(_INITIALIZE, *ACCELERATOR, *HF_TRAINERS)
    if not makers:
        return ()
    from .bindings import semantic_model

    from .program_effects import project_call

    model = semantic_model(facts)
    out = []
    for site in facts.calls:
        func = site.node.func
        if not (site.node.args or site.node.keywords) or not project_call(facts, site) or site.has_star_kwargs \
                or any(isinstance(a, ast.Starred) for a in site.node.args):
            continue
        given = [(p, None, a) for p, a in enumerate(site.node.args) if not isinstance(a, ast.Starred)]
        given += [(None, k.arg, k.value) for k in site.node.keywords if k.arg is not None]
        passed = tuple((p, k, kind) for p, k, a in given if (kind := object_kind(model, a)) is not None)
        if passed:
            out.append((ast.unparse(func), facts.lines.span_of_node(site.node), passed))
    return tuple(out)


def object_kind(model, expr: ast.AST) -> Optional[str]:
    """"engine" for a name every binding of which is the first value `deepspeed.initialize` returns
    (`engine, *_ = deepspeed.initialize(...)`, `deepspeed.initialize(...)[0]`), "accelerator" for an
    `Accelerator(...)`, "hf-trainer" for an HF Trainer; None otherwise."""
    if not isinstance(expr, ast.Name):
        return None
    bindings = model.reaching(expr.id, expr)
    kinds = {_bound_kind(model, b) for b in bindings}
    return kinds.pop() if len(kinds) == 1 and bindings else None


def _bound_kind(model, binding) -> Optional[str]:
    if binding.kind != "assignment" or binding.value is None:
        return None
    value, index = binding.value, tuple(binding.index or ())
    if isinstance(value, ast.Subscript) and not index and isinstance(value.slice, ast.Constant) \
            and value.slice.value == 0:
        value, index = value.value, (0,)
    if not isinstance(value, ast.Call):
        return None
    name = model.resolve(value.func)
    if name == _INITIALIZE:
        return "engine" if index == (0,) else None
    if name in ACCELERATOR:
        return "accelerator" if not index else None
    if name in HF_TRAINERS:
        return "hf-trainer" if not index else None
    return None


# -- the project phase ----------------------------------------------------------------------------
def helper_weight_saves(project, script: str, summary) -> list:
    """HelperSave of each save that a project function of another module makes on the engine, Accelerator or
    HF Trainer the script passes it (`summary`: the script's ScriptSummary)."""
    from .imported_extras import imported_extra

    out = []
    for local, call_span, passed in summary.extra.get("weight_save_calls") or ():
        found = imported_extra(project, script, local, "weight_saves")
        for param, position, what, span in found[1] if found is not None else ():
            needed = SAVE_METHODS[what.rsplit(".", 1)[-1]][1]
            if any(kind == needed and (keyword == param or (position is not None and p == position))
                   for p, keyword, kind in passed):
                out.append(HelperSave(found[0], span, what, call_span))
    return out


def setup_weight_saves(project, setup) -> list:
    """(path, Span, what) of the 16-bit weight saves a setup's script makes: its own (script_setup.WeightSave),
    then those of the project functions it passes its engine, Accelerator or HF Trainer (once per script)."""
    own = [(setup.script_path, save.span, save.what) for save in setup.facts.saves]
    memo = project.__dict__.setdefault("_helper_weight_saves", {})
    if setup.script_path not in memo:
        memo[setup.script_path] = helper_weight_saves(project, setup.script_path, setup.summary)
    return own + [(save.path, save.span, save.what) for save in memo[setup.script_path]]
