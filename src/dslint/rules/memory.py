"""DSL4xx: memory — evaluation that records autograd graphs, unbounded DeepSpeed inference workspaces."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..facts.script import ScriptFacts
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from ..facts.script import iterated_expression, literal
from .context import PythonContext
from .registry import Report, python_rule

_NO_GRAD = ("no_grad", "inference_mode")
# Calls that show the function trains or wants gradients: wrapping it in no_grad would break it.
_WANTS_GRAD = frozenset(("backward", "step", "zero_grad", "grad", "requires_grad_", "enable_grad", "set_grad_enabled",
                         "clip_grad_norm_", "manual_backward"))


def _is_grad_off(facts: ScriptFacts, expr: ast.AST) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)` (or a name bound to one)."""
    if isinstance(expr, ast.Name):
        return any(_is_grad_off(facts, a.value) for a in facts.assignments_to(expr.id))
    target = expr.func if isinstance(expr, ast.Call) else expr
    name = (facts.resolve(target) or dotted(target) or "").rsplit(".", 1)[-1]
    if name in _NO_GRAD:
        return True
    if name == "set_grad_enabled" and isinstance(expr, ast.Call) and expr.args:
        return literal(expr.args[0]) is False
    return False


def _decorated_grad_off(facts: ScriptFacts, function: ast.AST) -> bool:
    for dec in getattr(function, "decorator_list", ()):
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = (facts.resolve(target) or dotted(target) or "").rsplit(".", 1)[-1]
        # also project wrappers such as YOLOv5's @smart_inference_mode()
        if any(word in name for word in _NO_GRAD) or name in ("enable_grad", "set_grad_enabled"):
            return True
    return False


def _grad_off_around(facts: ScriptFacts, node: ast.AST) -> bool:
    where = facts.context_of(node)
    if where is None:
        return True
    if any(_is_grad_off(facts, item.context_expr) for w in where.withs for item in w.items):
        return True
    return where.function is not None and _decorated_grad_off(facts, where.function)


def _framework_runs_without_grad(facts: ScriptFacts, function: ast.AST) -> bool:
    """Lightning runs validation/test/predict hooks under no_grad; skip any method of a Lightning class."""
    where = facts.context_of(function)
    cls = where.class_ if where else None
    if cls is None:
        return False
    return any("lightning" in (facts.resolve(b) or "").lower() or "Lightning" in (dotted(b) or "") for b in cls.bases)


def _function_calls(facts: ScriptFacts, function: ast.AST):
    return [site for site in facts.calls if site.ctx.function is function]


def _callers_turn_grad_off(facts: ScriptFacts, function: ast.AST) -> bool:
    """Some caller in this module already runs it under no_grad (or passes it on, e.g. as a callback)."""
    name = function.name
    for site in facts.method_calls(name):
        if site.receiver not in (None, "self"):
            continue
        if _grad_off_around(facts, site.node):
            return True
    for node, _ in facts.of_type(ast.Attribute):
        if node.attr == name and isinstance(node.ctx, ast.Load) and not _is_call_func(facts, node):
            return True
    return False


def _is_call_func(facts: ScriptFacts, node: ast.AST) -> bool:
    where = facts.context_of(node)
    parent = where.parent if where else None
    return isinstance(parent, ast.Call) and parent.func is node


@python_rule("DSL401", "eval-without-no-grad", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def eval_without_no_grad(ctx: PythonContext) -> Iterator[Report]:
    """A function that puts a model in eval mode and runs it with autograd still recording."""
    facts = ctx.facts
    if not facts.uses("torch"):
        return
    seen = set()
    for function, model in _named_eval_loops(facts):
        if id(function) in seen:
            continue
        seen.add(id(function))
        report = _check_eval_function(ctx, function, model)
        if report is not None:
            yield report
    for site in facts.method_calls("eval"):
        function = site.ctx.function
        if site.node.args or site.node.keywords or site.receiver is None:
            continue
        if function is None:
            if "<module>" not in seen:
                seen.add("<module>")
                report = _check_module_level(ctx, site.receiver)
                if report is not None:
                    yield report
            continue
        if isinstance(function, ast.Lambda) or id(function) in seen:
            continue
        seen.add(id(function))
        report = _check_eval_function(ctx, function, site.receiver)
        if report is not None:
            yield report


_EVAL_FUNCTION = re.compile(r"(^|_)(eval|evaluate|evaluation|validate|validation|valid|val|test)($|_)", re.IGNORECASE)
_EVAL_DATA = re.compile(r"val|eval|test|dev", re.IGNORECASE)
_MODEL_NAMES = re.compile(r"(^|_)(model|net|network|engine|module|encoder|decoder|classifier|ddp_model|model_engine)$")


def _named_eval_loops(facts: ScriptFacts):
    """(function, model) for evaluation functions by name that loop over evaluation data and call a model."""
    for node, where in facts.of_type(ast.For):
        function = where.function
        if function is None or isinstance(function, ast.Lambda) or not _EVAL_FUNCTION.search(function.name):
            continue
        if function.name.startswith("test_") or "train" in function.name.lower():
            continue
        data = dotted(iterated_expression(node.iter)) or ""
        if not (_EVAL_DATA.search(data) or "loader" in data.lower()):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                name = dotted(inner.func) or ""
                base = name[:-len(".module")] if name.endswith(".module") else name
                base = base[:-len(".forward")] if base.endswith(".forward") else base
                if _MODEL_NAMES.search(base.rsplit(".", 1)[-1]):
                    yield function, base
                    break


def _check_eval_function(ctx: PythonContext, function: ast.AST, model: str) -> Optional[Report]:
    facts = ctx.facts
    if _decorated_grad_off(facts, function) or _framework_runs_without_grad(facts, function):
        return None
    if function.name.startswith("test_"):
        return None  # a unit test checking a forward, not an evaluation loop
    calls = _function_calls(facts, function)
    if any(site.attr in _WANTS_GRAD for site in calls):
        return None
    if any(site.attr == "train" and site.receiver == model and not site.node.args for site in calls):
        if not _train_only_at_the_end(function, model):
            return None
    forwards = [site for site in calls if _is_forward_of(site, model) and not _grad_off_around(facts, site.node)]
    if not forwards:
        return None
    if _callers_turn_grad_off(facts, function):
        return None
    first = forwards[0]
    fix = None
    torch_name = _torch_alias(facts)
    if torch_name and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fix = make_fix("decorate-no-grad", f"Decorate {function.name}() with @{torch_name}.no_grad()",
                       Applicability.UNSAFE, row=function.lineno, name=function.name, torch=torch_name)
    return Report(first.node, f"{function.name}() evaluates {model} (line {first.node.lineno}) with "
                  "autograd on: every forward keeps its activations for a backward that never comes (training-size "
                  "memory per batch, and every batch's graph if outputs are accumulated); run it under "
                  "torch.no_grad() or torch.inference_mode()", fix=fix)


def _check_module_level(ctx: PythonContext, model: str) -> Optional[Report]:
    """An inference script written at module level: `model.eval()` then forwards, nothing trains anywhere."""
    facts = ctx.facts
    if any(site.attr in _WANTS_GRAD or site.attr in _BACKWARD for site in facts.calls):
        return None
    if any(site.attr == "train" and site.receiver == model for site in facts.calls):
        return None
    forwards = [site for site in facts.calls if site.ctx.function is None and _is_forward_of(site, model)
                and not _grad_off_around(facts, site.node)]
    if not forwards:
        return None
    first = forwards[0]
    return Report(first.node, f"the script puts {model} in eval mode and runs it (line {first.node.lineno}) with autograd "
                  "on: every forward keeps its activations for a backward that never comes; wrap the inference in "
                  "`with torch.inference_mode():` (or torch.no_grad())")


def _train_only_at_the_end(function: ast.AST, model: str) -> bool:
    """`model.eval() ... model.train()` as the last statement restores the mode; anything else trains here."""
    last = function.body[-1] if function.body else None
    if isinstance(last, ast.Return) and len(function.body) > 1:
        last = function.body[-2]
    return (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and isinstance(last.value.func, ast.Attribute)
            and last.value.func.attr == "train" and dotted(last.value.func.value) == model)


def _is_forward_of(site, model: str) -> bool:
    """`model(x)`, `model.module(x)`, `model.forward(x)` — not `model.generate`, which HF runs under no_grad."""
    return dotted(site.node.func) in (model, f"{model}.module", f"{model}.forward", f"{model}.module.forward")


def _torch_alias(facts: ScriptFacts) -> Optional[str]:
    for local, qualified in facts.imports.names.items():
        if qualified == "torch":
            return local
    return None


@codemod_fixer("decorate-no-grad")
def _decorate_no_grad(module, positions, params):
    import libcst as cst

    target = None
    for node, where in positions.items():
        if isinstance(node, (cst.FunctionDef,)) and node.name.value == params["name"]:
            name_where = positions.get(node.name)
            if name_where is not None and name_where.start.line == params["row"]:
                target = node
    if target is None:
        return None
    torch_name = params["torch"]
    for dec in target.decorators:
        code = module.code_for_node(dec.decorator)
        if code.startswith((f"{torch_name}.no_grad", f"{torch_name}.inference_mode")):
            return None
    decorator = cst.Decorator(decorator=cst.parse_expression(f"{torch_name}.no_grad()"))
    return module.deep_replace(target, target.with_changes(decorators=[*target.decorators, decorator]))


# Per-token workspace bytes grow with the batch; from ~32 sequences a 7B model's 1024-token
# workspace (~0.7 GB per sequence) outgrows what is free on an 80 GB GPU next to its weights.
_LARGE_BATCH = 32


def _largest_batch_size(facts: ScriptFacts) -> Optional[int]:
    """The largest batch written in the script: `batch_size=`, a `--batch_size` default, `[prompt] * n`."""
    sizes = []
    for site in facts.calls:
        value = literal(site.keyword("batch_size"))
        if isinstance(value, int) and not isinstance(value, bool):
            sizes.append(value)
        if site.attr == "add_argument" and site.node.args and "batch" in str(literal(site.node.args[0]) or ""):
            default = literal(site.keyword("default"))
            if isinstance(default, int) and not isinstance(default, bool):
                sizes.append(default)
    for node, _ in facts.of_type(ast.BinOp):
        # a batch of prompts built as `["prompt"] * 150` (report 2's shape)
        if isinstance(node.op, ast.Mult) and (isinstance(node.left, ast.List) or isinstance(node.right, ast.List)):
            count = literal(node.right if isinstance(node.left, ast.List) else node.left)
            if isinstance(count, int) and not isinstance(count, bool):
                sizes.append(count)
    return max(sizes) if sizes else None


def _kwarg(site, *names):
    for name in names:
        value = site.keyword(name)
        if value is not None:
            return value
    return None


@python_rule("DSL403", "ds-inference-workspace-unbounded", severity=Severity.WARNING)
def ds_inference_workspace_unbounded(ctx: PythonContext) -> Iterator[Report]:
    """init_inference with kernel injection and no max_out_tokens: the workspace takes nearly all free GPU memory."""
    facts = ctx.facts
    if not facts.calls_to("deepspeed.init_inference") or facts.uses("diffusers"):
        return  # (DeepSpeed's diffusers attention fixes its own workspace at 4096 tokens)
    batch = _largest_batch_size(facts)
    if batch is None or batch < _LARGE_BATCH:
        return
    for site in facts.calls_to("deepspeed.init_inference"):
        if site.has_star_kwargs:
            continue
        config = site.keyword("config")
        config_value = literal(config) if config is not None else {}
        if not isinstance(config_value, dict):
            continue  # a JSON path or a built dict: we cannot see it
        inject = _kwarg(site, "replace_with_kernel_inject", "kernel_inject")
        injected = literal(inject) if inject is not None else config_value.get(
            "replace_with_kernel_inject", config_value.get("kernel_inject"))
        if injected is not True:
            continue
        if _kwarg(site, "max_out_tokens", "max_tokens") is not None or {"max_out_tokens", "max_tokens"} & set(config_value):
            continue
        yield Report(site.node, "deepspeed.init_inference with kernel injection and no max_out_tokens: on the first "
                     "forward DeepSpeed sizes its workspace for max_out_tokens (default 1024) tokens of the whole "
                     f"batch (this script batches up to {batch}), capped only by the GPU memory free at that moment "
                     "minus ~0.5 GB, and allocates it "
                     "outside PyTorch's allocator (torch.cuda.memory_* do not show it); the next PyTorch allocation, "
                     "e.g. the logits, runs out of memory. Pass max_out_tokens=<prompt + new tokens>")


# -- DSL402: a frozen (eval-only) model run with autograd on inside a training step -------------------

_BACKWARD = ("backward", "manual_backward")
_TRAINING_HOOKS = ("training_step",)


def _eval_targets(facts: ScriptFacts) -> dict[str, ast.Call]:
    """Models put in eval mode: `teacher.eval()` or `teacher = load(...).eval()` → the `.eval()` call."""
    found: dict[str, ast.Call] = {}
    for site in facts.method_calls("eval"):
        if site.node.args or site.node.keywords or not isinstance(site.node.func, ast.Attribute):
            continue
        parent = site.ctx.parent
        if isinstance(parent, ast.Expr) and site.receiver:
            found.setdefault(site.receiver, site.node)
        elif isinstance(parent, ast.Assign) and parent.value is site.node and len(parent.targets) == 1:
            name = dotted(parent.targets[0])
            if name:
                found.setdefault(name, site.node)
    return found


def _is_trained_or_handed_on(facts: ScriptFacts, name: str) -> bool:
    """Anything that may train or freeze the model: .train(), its parameters, requires_grad_, passing it on."""
    for site in facts.calls:
        func = site.node.func
        if isinstance(func, ast.Attribute):
            base = ast.unparse(func.value)
            if base in (name, f"{name}.eval()", f"{name}.module") and func.attr in (
                    "train", "parameters", "named_parameters", "requires_grad_", "state_dict", "load_state_dict"):
                return True
        for arg in [*site.node.args, *(k.value for k in site.node.keywords)]:
            if dotted(arg) == name:
                return True
    return False


def _training_function(facts: ScriptFacts, function: ast.AST) -> bool:
    if getattr(function, "name", "") in _TRAINING_HOOKS:
        return True
    return any(site.attr in _BACKWARD for site in _function_calls(facts, function))


@python_rule("DSL402", "frozen-model-records-gradients", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def frozen_model_records_gradients(ctx: PythonContext) -> Iterator[Report]:
    """A model only ever used in eval mode (a teacher, a reference model) runs with autograd on in a training step."""
    facts = ctx.facts
    if not facts.uses("torch"):
        return
    targets = _eval_targets(facts)
    if not targets:
        return
    for name, eval_call in targets.items():
        forwards = facts.method_calls(name.rsplit(".", 1)[-1]) + facts.method_calls("forward") + facts.method_calls("module")
        for site in forwards:
            function = site.ctx.function
            if function is None or dotted(site.node.func) not in (name, f"{name}.forward", f"{name}.module"):
                continue
            if _grad_off_around(facts, site.node) or not _training_function(facts, function):
                continue
            if _is_trained_or_handed_on(facts, name):
                break
            span = facts.lines.span_of_node(eval_call)
            yield Report(site.node, f"{name} is only ever in eval mode (line {eval_call.lineno}) and never trained here, "
                         f"but {getattr(function, 'name', 'this function')}() runs it with autograd on: its "
                         "activations are kept for the backward and, where its output reaches the loss, every one of "
                         f"its parameters gets a gradient buffer; freeze it ({name}.requires_grad_(False)) or run it "
                         "under torch.no_grad()",
                         fix=make_fix("freeze-eval-model", f"Freeze {name}: .eval().requires_grad_(False)",
                                      Applicability.UNSAFE, row=span.start.row, column=span.start.column,
                                      end_row=span.end.row, end_column=span.end.column))
            break


@codemod_fixer("freeze-eval-model")
def _freeze_eval_model(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"], params["end_row"], params["end_column"])
    if call is None or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "eval":
        return None
    frozen = cst.Call(func=cst.Attribute(value=call, attr=cst.Name("requires_grad_")), args=[cst.Arg(cst.Name("False"))])
    return module.deep_replace(call, frozen)
