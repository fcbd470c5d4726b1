"""DSL4xx: memory — evaluation that records autograd graphs, unbounded DeepSpeed inference workspaces.

The model rules ask two questions of the facts layer: *which object* a model expression is
(`facts.objects.object_of`: through bindings, `self.x` set in `__init__`, `.to()`/`.eval()` chains
and DDP's `.module`), and *whether autograd is off* where it runs (`facts.conditions.autograd_off`:
`grad_disabled_at`, and the callers of a helper in the same module; a project decorator or context
manager of another module that turns it off is the project phase's to decide: `grad-off-helpers`).
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Iterator, Optional

from ..facts.bindings import Binding, SemanticModel, semantic_model
from ..facts.conditions import autograd_off, runs_before
from ..facts.cuda import DDP, FSDP
from ..facts.batch_sizes import callers_largest_batch, largest_batch_size
from ..facts.program_callers import callers_with_grad
from ..facts.objects import (SAME_OBJECT_METHODS, callee_name, class_lineage, module_name_at, object_of,
                             object_with_arguments, passed_on, self_class)
from ..facts.program_effects import grad_off_helper, local_callee, made_up
from ..facts.script import CallSite, ScriptFacts, iterated_expression
from ..facts.values import constant
from ..fixes import codemod_fixer, make_fix, node_at
from ..model import Applicability, Severity
from ..sources.names import dotted
from .context import PythonContext
from .registry import decide_then, Report, decider, file_label, python_rule, short

# -- which model an expression is ------------------------------------------------------------------

def _forward_target(call: ast.Call) -> Optional[ast.expr]:
    """The module a call runs: `model(x)` and `model.forward(x)` → `model` (`model.generate` is not
    a forward: Hugging Face runs it under no_grad)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    return func if isinstance(func, (ast.Name, ast.Attribute)) else None


def _runs(model: SemanticModel, call: ast.Call, key) -> bool:
    target = _forward_target(call)
    return target is not None and object_of(model, target) == key


def _method_of(model: SemanticModel, call: ast.Call, names, key) -> bool:
    """`<the model>.<one of names>(...)`, also on the wrapper that holds it (`model = DDP(model);
    model.train()` sets the wrapped module's mode too)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in names):
        return False
    found = object_of(model, func.value)
    return found == key or (isinstance(found, ast.Call) and model.resolve(found.func) in _WRAPPERS
                            and bool(found.args) and object_of(model, found.args[0]) == key)


_WRAPPERS = frozenset((DDP, *FSDP, "torch.nn.DataParallel", "torch.nn.parallel.DataParallel"))


def _attr(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


# -- DSL401: evaluation with autograd on ------------------------------------------------------------

# Calls that show the function trains or wants gradients: wrapping it in no_grad would break it.
_WANTS_GRAD = frozenset(("backward", "manual_backward", "step", "zero_grad", "grad", "requires_grad_", "enable_grad",
                         "set_grad_enabled", "clip_grad_norm_"))
_EVAL_FUNCTION = re.compile(r"(^|_)(eval|evaluate|evaluation|validate|validation|valid|val|test)($|_)", re.IGNORECASE)
_EVAL_DATA = re.compile(r"val|eval|test|dev", re.IGNORECASE)
_MODEL_NAMES = re.compile(r"(^|_)(model|net|network|engine|module|encoder|decoder|classifier|ddp_model|model_engine)$")
_NOT_MODELS = ("def", "class", "import", "from-import")
# `evaluate_model`, `run_eval`: a function named for what it does to a model, not a model
_VERB_PHRASE = re.compile(r"^(evaluate|eval|run|compute|test|validate|score|predict|do|get|build|load)_")


@python_rule("DSL401", "eval-without-no-grad", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def eval_without_no_grad(ctx: PythonContext) -> Iterator[Report]:
    """A function that puts a model in eval mode and runs it with autograd still recording."""
    facts = ctx.facts
    if not facts.uses("torch"):
        return
    model = semantic_model(facts)
    reported, checked = set(), set()
    for function, target in (*_named_eval_loops(facts, model), *_eval_calls(facts)):
        key = (function, object_of(model, target))
        if function in reported or key in checked:
            continue
        checked.add(key)  # (each model a function puts in eval mode; one report per function)
        check = _check_eval_function if function is not None else _check_module_level
        report = check(ctx, model, function, target)
        if report is not None:
            reported.add(function)
            yield report


def _eval_calls(facts: ScriptFacts):
    """(function or None at module level, model) for each `model.eval()`."""
    for site in facts.method_calls("eval"):
        call = site.node
        if call.args or call.keywords or not isinstance(call.func, ast.Attribute):
            continue
        if not isinstance(site.ctx.function, ast.Lambda):
            yield site.ctx.function, call.func.value


def _named_eval_loops(facts: ScriptFacts, model: SemanticModel):
    """(function, model) for evaluation functions by name that loop over evaluation data and run a model."""
    for node, where in facts.of_type(ast.For):
        function = where.function
        name = getattr(function, "name", "")
        if not _EVAL_FUNCTION.search(name) or name.startswith("test_") or "train" in name.lower():
            continue
        data = dotted(iterated_expression(node.iter)) or ""
        if not (_EVAL_DATA.search(data) or "loader" in data.lower()):
            continue
        for inner in ast.walk(node):
            target = _forward_target(inner) if isinstance(inner, ast.Call) else None
            if target is not None and _looks_like_a_model(model, target) and not _own_method(model, function, target):
                yield function, target
                break


def _looks_like_a_model(model: SemanticModel, target: ast.expr) -> bool:
    while isinstance(target, ast.Attribute) and target.attr == "module":
        target = target.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        owner = model.binding_of(target.value)
        if owner is not None and (owner.kind == "import" or owner.kind == "from-import" and _VERB_PHRASE.match(target.attr)):
            return False  # `beir_utils.evaluate_model(...)`: a function of a module, named for what it evaluates
    name = target.attr if isinstance(target, ast.Attribute) else target.id
    key = object_of(model, target)
    return bool(_MODEL_NAMES.search(name)) and key is not None and not (
        isinstance(key, Binding) and key.kind in _NOT_MODELS)


def _own_method(model: SemanticModel, function: ast.AST, target: ast.expr) -> bool:
    """`self.extract_head_from_model(m)` / `cls.build_model(...)`: a method of the function's own
    class (or of a class of this module it derives from), called like a function, not a module."""
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id in ("self", "cls")):
        return False
    cls = model.class_of(function)
    return cls is not None and any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == target.attr
                                   for c in class_lineage(model, cls) for s in c.body)


def _unit_test_helper(facts: ScriptFacts, function: ast.AST) -> bool:
    """Every call of the function in its module comes from a `test_` function (`self._test_eval(sizes)`
    in unittest methods): a helper of unit tests, each of which runs one forward and returns."""
    name = function.name
    callers = []
    for site in facts.calls:
        func = site.node.func
        if site.attr != name or not (isinstance(func, ast.Name) or (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"))):
            continue
        callers.append(getattr(site.ctx.function, "name", ""))
    return bool(callers) and all(c.startswith("test_") for c in callers)


def _check_eval_function(ctx: PythonContext, model: SemanticModel, function: ast.AST, target) -> Optional[Report]:
    facts = ctx.facts
    key = object_of(model, target)
    if key is None or function.name.startswith("test_") or _in_lightning_module(model, function):
        return None  # (a test_ function is a unit test of a forward; Lightning runs its hooks without grad)
    if _unit_test_helper(facts, function) or _forward_of_a_class(facts, function):
        return None
    calls = model.calls_in(function)
    if _wants_grad(model, function, calls) or _output_trained_on(model, facts, function) or _sets_requires_grad(function):
        return None
    if any(_method_of(model, c, ("train",), key) for c in calls) and not _train_only_at_the_end(model, function, key):
        return None
    on, off_if = _grad_on(facts, [c for c in calls if _runs(model, c, key) and not _frozen_around(model, facts, c, key)])
    forwards, helpers = _real_forwards(model, facts, on, function)
    if not forwards and off_if:
        forwards, helpers = _real_forwards(model, facts, list(off_if), function)
    grad_helpers = () if on and forwards and forwards[0] in on else tuple(sorted(set().union(*off_if.values())))
    if not forwards or passed_on(model, function):
        return None
    torch_name = module_name_at(model, "torch", function)
    fix = None
    if torch_name and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fix = make_fix("decorate-no-grad", f"Decorate {function.name}() with @{torch_name}.no_grad()",
                       Applicability.UNSAFE, row=function.lineno, name=function.name, torch=torch_name)
    # A module-level helper only other modules call runs in their grad mode: the project phase asks them.
    only_elsewhere = function in facts.tree.body and not function.decorator_list and not any(
        isinstance(n, ast.Name) and n.id == function.name for n in ast.walk(facts.tree))
    return Report(forwards[0], f"{short(function.name, 24)}() evaluates {short(ast.unparse(target), 24)} with autograd "
                  "on, so every forward keeps its activations; run it under torch.no_grad()", fix=fix,
                  needs=_off_by(grad_helpers, _made_up_by(helpers, ("eval-helper-callers", (("name", function.name),))
                                                          if only_elsewhere else _NO_GRADIENTS)))


def _grad_on(facts: ScriptFacts, forwards: list) -> tuple:
    """(the forwards that run with autograd on, {forward: {(local name, kind), ...}} for those that run with it
    off only if project decorators or context managers of other modules turn it off: `autograd_off`'s `assumed`)."""
    on, off_if = [], {}
    for call in forwards:
        assumed: set = set()
        if not autograd_off(facts, call, assumed):
            on.append(call)
        elif assumed:
            off_if[call] = assumed
    return on, off_if


def _off_by(helpers: tuple, then: Optional[tuple]) -> Optional[tuple]:
    return ("grad-off-helpers", (("helpers", helpers), ("then", then))) if helpers else then


@decider("grad-off-helpers")
def _decide_grad_off_helpers(finding, project, params):
    """Drop the finding when every project decorator or context manager of another module that its forwards
    run under turns autograd off (`@no_autograd` whose wrapper runs the method under inference_mode, `with
    frozen():` that calls set_grad_enabled(False) before its yield); else the decision it needed besides."""
    if all(grad_off_helper(project.program, finding.path, local, kind) for local, kind in params["helpers"]):
        return None
    return decide_then(finding, project, params["then"])


@decider("eval-helper-callers")
def _decide_eval_helper(finding, project, params):
    """Drop the finding when every module that calls the helper calls it with autograd off (from a
    `@torch.no_grad()` main); keep it when nothing in the project calls it (a tool's public function)."""
    modes = callers_with_grad(project.program, finding.path, params["name"])
    if modes and not any(modes):
        return None
    return _decide_no_gradients(finding, project, params)


_NO_GRADIENTS = ("no-gradients-in-program", ())


def _real_forwards(model: SemanticModel, facts: ScriptFacts, candidates: list, scope: Optional[ast.AST]) -> tuple:
    """(the forwards that are no smoke test, the project functions of other modules that would make them one):
    the forwards fed what functions imported from the project return (`inputs = demo_inputs(shape)`) are
    smoke tests when those return made-up data, which the program says; they are reported only when no
    other forward is, and then the project phase decides (`made-up-inputs`)."""
    real, conditional, helpers = [], [], set()
    for call in candidates:
        if _smoke_forward(model, call, scope, facts.functions):
            continue
        assumed: set = set()
        if _smoke_forward(model, call, scope, facts.functions, assumed) and assumed:
            conditional.append(call)
            helpers |= assumed
        else:
            real.append(call)
    return (real, ()) if real else (conditional, tuple(sorted(helpers)))


def _made_up_by(helpers: tuple, then: tuple) -> tuple:
    return ("made-up-inputs", (("helpers", helpers), ("then", then))) if helpers else then


@decider("made-up-inputs")
def _decide_made_up_inputs(finding, project, params):
    """Drop the finding when every project function of another module its forwards are fed from returns
    made-up data (FunctionSummary.returns_made_up); else the decision the finding needed besides."""
    made_up_everywhere = True
    for local in params["helpers"]:
        found = project.program.function_called(finding.path, local)
        if found is None or not found[1].returns_made_up or found[0].klass is not None:
            made_up_everywhere = False
    if made_up_everywhere:
        return None
    return decide_then(finding, project, params["then"])


@decider("no-gradients-in-program")
def _decide_no_gradients(finding, project, params):
    """Drop the finding when its module, or one it imports, differentiates itself (`torch.autograd.grad` in
    a force field's forward, a physics loss): its evaluation may need autograd on, and no_grad would break it."""
    return None if project.program.takes_gradients_near(finding.path) else finding


# Tensors made up from a shape alone: a forward fed only these (or nothing) is a smoke test or a shape check.
_SYNTHETIC = frozenset(f"torch.{name}" for name in ("zeros", "ones", "rand", "randn", "randint", "empty", "full",
                                                     "arange", "zeros_like", "ones_like", "randn_like", "rand_like",
                                                     "FloatTensor", "Tensor", "HalfTensor", "LongTensor",
                                                     "cuda.FloatTensor", "cuda.HalfTensor"))


def _smoke_forward(model: SemanticModel, call: ast.Call, scope: Optional[ast.AST], functions: dict,
                   assumed: Optional[set] = None) -> bool:
    """One forward, outside any loop of its function (or of the module), fed only tensors made up from a
    shape (`x = torch.zeros(1, 200, 80); out = model(x)`, or what a helper of the module builds of random
    arrays: `inputs = _demo_inputs(shape)`; program_effects.made_up) or nothing at all (`zs = self.masks()`),
    or whose result is dropped at once (`_ = model(**inputs)`, a FLOPs counter): a model file's `__main__`
    check, an export's verification or a shape probe, not an evaluation; it holds one forward's activations,
    if any, for a moment."""
    node = model.parent_of(call)
    while node is not None and node is not scope:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.comprehension, ast.ListComp, ast.GeneratorExp,
                             ast.SetComp, ast.DictComp)):
            return False
        node = model.parent_of(node)
    parent = model.parent_of(call)
    if isinstance(parent, ast.Expr) or (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                                        and isinstance(parent.targets[0], ast.Name) and parent.targets[0].id == "_"):
        return True  # (`_ = flops_model(**inputs)`: the result, and with it the graph, is dropped at once)
    for arg in (*call.args, *(k.value for k in call.keywords)):
        if isinstance(arg, ast.Starred):
            return False
        if made_up(model, arg, functions, assumed):
            continue
        value = model.value_of(arg) if isinstance(arg, ast.Name) else arg
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _MOVES_AND_CASTS:
            value = value.func.value  # `torch.ones(1, 3, 640, 640).cuda()`, `.to(device).half()`
            value = model.value_of(value) if isinstance(value, ast.Name) else value
        if isinstance(value, ast.Constant):
            continue
        if not (isinstance(value, ast.Call) and model.resolve(value.func) in _SYNTHETIC):
            return False
    return True


_MOVES_AND_CASTS = frozenset(("to", "cuda", "cpu", "half", "float", "bfloat16", "double", "type", "contiguous"))


def _sets_requires_grad(scope: ast.AST) -> bool:
    """`for p in model.parameters(): p.requires_grad = False`: the code sets autograd per tensor itself
    (a freeze, as `.requires_grad_(False)` is; see _WANTS_GRAD)."""
    return any(isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
        isinstance(t, ast.Attribute) and t.attr == "requires_grad"
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])) for node in ast.walk(scope))


def _frozen_around(model: SemanticModel, facts: ScriptFacts, call: ast.Call, key) -> bool:
    """The forward runs inside `with freeze(model):`, a `@contextmanager` of this module that sets
    `p.requires_grad = False` (or `.requires_grad_(False)`) on `model.parameters()` before its `yield`:
    with no parameter recording, the forward keeps no graph but the one it asks for itself."""
    node = model.parent_of(call)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                manager = item.context_expr
                if (isinstance(manager, ast.Call) and isinstance(manager.func, ast.Name)
                        and any(object_of(model, a) == key for a in manager.args)
                        and _freezing_context(model, facts.functions.get(manager.func.id))):
                    return True
        node = model.parent_of(node)
    return False


def _freezing_context(model: SemanticModel, function: Optional[ast.AST]) -> bool:
    if not isinstance(function, ast.FunctionDef) or not any(
            callee_name(model, d) == "contextlib.contextmanager" for d in function.decorator_list):
        return False
    params = {a.arg for a in function.args.args}
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "parameters"
               and isinstance(n.func.value, ast.Name) and n.func.value.id in params for n in ast.walk(function)):
        return False  # (the parameters it freezes are those of the module handed in)
    yields = [n for n in ast.walk(function) if isinstance(n, (ast.Yield, ast.YieldFrom))]
    if len(yields) != 1:
        return False
    for node in ast.walk(function):
        if (node.lineno if hasattr(node, "lineno") else 0) >= yields[0].lineno:
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_"
                and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value is False):
            return True
    return False


def _forward_of_a_class(facts: ScriptFacts, function: ast.AST) -> bool:
    """`forward` (or `__call__`) of a class: a module's forward runs in its caller's grad mode, and the
    caller decides (`@torch.no_grad() def generate(...): self.vocoder(x)`); the evaluation loop that
    calls it is where autograd should be off."""
    return getattr(function, "name", None) in ("forward", "__call__") and any(
        function in klass.body for klass in facts.classes.values())


def _check_module_level(ctx: PythonContext, model: SemanticModel, _, target) -> Optional[Report]:
    """An inference script written at module level: `model.eval()` then forwards, nothing trains anywhere."""
    facts = ctx.facts
    key = object_of(model, target)
    if key is None or any(site.attr in _WANTS_GRAD for site in facts.calls) or _sets_requires_grad(facts.tree):
        return None
    if any(_method_of(model, site.node, ("train",), key) for site in facts.calls):
        return None
    on, off_if = _grad_on(facts, [s.node for s in facts.calls if s.ctx.function is None and _runs(model, s.node, key)])
    forwards, helpers = _real_forwards(model, facts, on, None)
    if not forwards and off_if:
        forwards, helpers = _real_forwards(model, facts, list(off_if), None)
    grad_helpers = () if on and forwards and forwards[0] in on else tuple(sorted(set().union(*off_if.values())))
    if not forwards:
        return None
    return Report(forwards[0], f"the script runs {short(ast.unparse(target), 24)} in eval mode with autograd on, so "
                  "every forward keeps its activations; wrap it in `with torch.inference_mode():`",
                  needs=_off_by(grad_helpers, _made_up_by(helpers, _NO_GRADIENTS)))


def _wants_grad(model: SemanticModel, function: ast.AST, calls: list[ast.Call]) -> bool:
    """The function trains or turns gradients on itself (`@torch.enable_grad()`)."""
    decorators = [callee_name(model, d) for d in function.decorator_list]
    return (any(_attr(c) in _WANTS_GRAD for c in calls)
            or any(n.endswith(("enable_grad", "set_grad_enabled")) for n in decorators))


def _output_trained_on(model: SemanticModel, facts: ScriptFacts, function: ast.AST) -> bool:
    """Does a caller in this module (`self.f(...)` in a method of the class, `f(...)` of a module-level
    function) run it with autograd on and hand its result to a method or function that trains
    (`new = self.forward_pass(b); self.update(new)`)? PPO's `model.eval()` only turns dropout off:
    the graph of that forward is what the update trains."""
    in_class = model.class_of(function) is not None
    for site in facts.method_calls(function.name):
        if (site.receiver not in ("self", "cls") if in_class else not isinstance(site.node.func, ast.Name)):
            continue
        caller = site.ctx.function
        results = _result_names(site)
        if caller is None or caller is function or not results or autograd_off(facts, site.node):
            continue
        for call in facts.calls:
            node = call.node
            if call.ctx.function is not caller or not any(
                    isinstance(a, ast.Name) and a.id in results for a in [*node.args, *(k.value for k in node.keywords)]):
                continue
            callee = local_callee(facts, call)
            if callee is not None and callee is not function and _wants_grad(model, callee, model.calls_in(callee)):
                return True
    return False


def _result_names(site: CallSite) -> set:
    """The names a call's value is bound to: `out = f()`, `a, b, _ = f()`."""
    parent = site.ctx.parent
    if not isinstance(parent, ast.Assign) or parent.value is not site.node or len(parent.targets) != 1:
        return set()
    target = parent.targets[0]
    elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    return {e.id for e in elements if isinstance(e, ast.Name) and e.id != "_"}


def _train_only_at_the_end(model: SemanticModel, function: ast.AST, key) -> bool:
    """`model.eval() ... model.train()` as the last statement restores the mode; anything else trains here."""
    body = function.body
    last = body[-2] if len(body) > 1 and isinstance(body[-1], ast.Return) else body[-1]
    return (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
            and _method_of(model, last.value, ("train",), key))


def _in_lightning_module(model: SemanticModel, function: ast.AST) -> bool:
    """A method of a Lightning class (or of a local subclass of one): the Trainer runs its
    validation, test and predict hooks without grad."""
    cls = model.class_of(function)
    return cls is not None and any("lightning" in (model.resolve(b) or "").lower() or "Lightning" in ast.unparse(b)
                                   for c in class_lineage(model, cls) for b in c.bases)


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


# -- DSL403: DeepSpeed inference workspace ------------------------------------------------------------

# Per-token workspace bytes grow with the batch; from ~32 sequences a 7B model's 1024-token
# workspace (~0.7 GB per sequence) outgrows what is free on an 80 GB GPU next to its weights.
_LARGE_BATCH = 32
_TOKEN_LIMITS = frozenset(("max_out_tokens", "max_tokens"))


@python_rule("DSL403", "ds-inference-workspace-unbounded", severity=Severity.WARNING)
def ds_inference_workspace_unbounded(ctx: PythonContext) -> Iterator[Report]:
    """init_inference with kernel injection and no max_out_tokens: the workspace takes nearly all free GPU memory."""
    facts = ctx.facts
    sites = facts.calls_to("deepspeed.init_inference")
    if not sites or facts.uses("diffusers"):
        return  # (DeepSpeed's diffusers attention fixes its own workspace at 4096 tokens)
    model = semantic_model(facts)
    batch = largest_batch_size(facts)
    for site in sites:
        settings = _inference_settings(model, site)
        if settings is None or _TOKEN_LIMITS & settings.keys():
            continue
        inject = settings.get("replace_with_kernel_inject", settings.get("kernel_inject"))
        if constant(model, inject) is not True:
            continue
        if batch is not None and batch >= _LARGE_BATCH:
            yield Report(site.node, f"kernel injection without max_out_tokens: at batch {batch} DeepSpeed's workspace "
                         "takes nearly all GPU memory; pass max_out_tokens=<prompt + new tokens>")
        elif batch is None and isinstance(site.ctx.function, ast.FunctionDef) and site.ctx.function in facts.tree.body:
            # (a helper that builds the engine; the batch is its callers': decided once linked)
            yield Report(site.node, "kernel injection without max_out_tokens: DeepSpeed's workspace takes nearly all "
                         "GPU memory at large batches; pass max_out_tokens=<prompt + new tokens>",
                         needs=("callers-decode-large-batches", (("function", site.ctx.function.name),)))


@decider("callers-decode-large-batches")
def _decide_callers_decode_large_batches(finding, project, params):
    """Keep the engine a helper builds when a module that calls it (another module) writes a batch
    of at least _LARGE_BATCH; the message names it."""
    found = callers_largest_batch(project, finding.path, params["function"], _LARGE_BATCH)
    if found is None:
        return None
    return replace(finding, message=f"kernel injection without max_out_tokens: at batch {found[0]} "
                   f"({file_label(found[1], 24)}) DeepSpeed's workspace takes nearly all GPU memory; pass "
                   "max_out_tokens=<prompt + new tokens>")


def _inference_settings(model: SemanticModel, site: CallSite) -> Optional[dict[str, ast.expr]]:
    """The keyword arguments of an init_inference call merged with its `config` dict (DeepSpeed
    merges them too), or None when some cannot be seen (`**kwargs`, a JSON path, a built config)."""
    call = site.node
    if site.has_star_kwargs or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    config = site.argument(1, "config")
    settings: Optional[dict] = {}
    if config is not None and not (isinstance(config, ast.Constant) and config.value is None):
        settings = _written_dict(model, config)
        if settings is None:
            return None
    return {**settings, **{k.arg: k.value for k in call.keywords if k.arg != "config"}}


def _written_dict(model: SemanticModel, expr: ast.expr) -> Optional[dict[str, ast.expr]]:
    """Key → value expression of a dict written in this module (`{...}` or `dict(k=v)`), followed
    through names used nowhere else; None when it cannot be seen whole (`**more`, a path, a name
    used elsewhere too, which may change it)."""
    for _ in range(4):
        if not isinstance(expr, ast.Name):
            break
        binding = model.binding_of(expr)
        if binding is None or any(use is not expr for use in model.uses_of(binding)):
            return None
        expr = model.assigned_value(expr)
    if isinstance(expr, ast.Dict):
        keys = [constant(model, k) if k is not None else None for k in expr.keys]
        return dict(zip(keys, expr.values)) if all(isinstance(k, str) for k in keys) else None
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict" and not expr.args
            and not model.reaching("dict", expr.func) and all(k.arg for k in expr.keywords)):
        return {k.arg: k.value for k in expr.keywords}
    return None


# -- DSL402: a frozen (eval-only) model run with autograd on inside a training step -------------------

_BACKWARD = ("backward", "manual_backward")
_TRAINING_HOOKS = ("training_step",)
# Calls on a model that may train or freeze it.
_TRAINS_OR_FREEZES = ("train", "parameters", "named_parameters", "requires_grad_", "state_dict", "load_state_dict")


@python_rule("DSL402", "frozen-model-records-gradients", severity=Severity.WARNING, fix=Applicability.UNSAFE)
def frozen_model_records_gradients(ctx: PythonContext) -> Iterator[Report]:
    """A model only ever used in eval mode (a teacher, a reference model) runs with autograd on in a training step."""
    facts = ctx.facts
    if not facts.uses("torch"):
        return
    model = semantic_model(facts)
    steps = _training_step_calls(facts)
    evals = _eval_modes(facts, model) if steps else {}  # (no training step: nothing to report, nothing to look up)
    decided, off_if = set(), {}  # (off_if: model -> [first site, target, before, what turns autograd off there])
    for site in steps if evals else ():
        target = _frozen_method_target(site.node) or _forward_target(site.node)
        key = object_of(model, target) if target is not None else None
        if key not in evals or key in decided:
            continue
        before = [e for e in evals[key] if e.ctx.function is None or runs_before(e.node, e.ctx, site.node, site.ctx)]
        assumed: set = set()
        if not before or autograd_off(facts, site.node, assumed):
            if before and assumed:  # (off if another module's decorator or context manager turns it off)
                off_if.setdefault(key, [site, target, before, set()])[3].update(assumed)
            continue
        decided.add(key)
        report = _frozen_model_report(facts, model, site, key, target, before)
        if report is not None:
            report.needs = _callers_needs(facts, key, None)
            yield report
    for key, (site, target, before, assumed) in off_if.items():
        report = None if key in decided else _frozen_model_report(facts, model, site, key, target, before)
        if report is not None:
            report.needs = _callers_needs(facts, key, _off_by(tuple(sorted(assumed)), None))
            yield report
    yield from _constructor_fed_models(facts, steps)


def _constructor_fed_models(facts: ScriptFacts, steps: list) -> Iterator[Report]:
    """`self.reference(...)` in a training step of a class that stores `reference`, a parameter of its
    `__init__`, as `self.reference` and never trains, freezes or hands it on, next to another `self.x(...)`
    forward: a frozen model if its callers pass a `from_pretrained` model they never train (decided once
    linked: `constructor-gets-pretrained`)."""
    stores = _init_parameter_stores(facts)
    reported = set()
    for site in steps if stores else ():
        func, klass = site.node.func, site.ctx.class_
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and klass is not None and (klass.name, func.attr) in stores and (klass.name, func.attr) not in reported):
            continue
        others = [c for c in facts.calls if c.ctx.function is site.ctx.function and c.node is not site.node
                  and isinstance(c.node.func, ast.Attribute) and isinstance(c.node.func.value, ast.Name)
                  and c.node.func.value.id == "self" and (klass.name, c.node.func.attr) in stores]
        if not others or autograd_off(facts, site.node) or _self_attribute_touched(facts, klass, func.attr):
            continue
        reported.add((klass.name, func.attr))
        param, position = stores[(klass.name, func.attr)]
        yield Report(site.node, f"self.{short(func.attr, 20)} is an eval-mode from_pretrained model its callers pass, yet "
                     f"{short(site.ctx.function.name, 20)}() records its graph; call it under torch.no_grad()",
                     needs=("constructor-gets-pretrained", (("klass", klass.name), ("param", param),
                                                            ("position", position))))


def _init_parameter_stores(facts: ScriptFacts) -> dict:
    """(class, attribute) -> (parameter, its position after self, None for a keyword-only one) for each
    `self.x = p` of a parameter `p` in the `__init__` of a top-level class (module_summary.init_stores)."""
    from ..facts.module_summary import init_stores

    out = {}
    for klass in (n for n in facts.tree.body if isinstance(n, ast.ClassDef)):
        init = next((f for f in klass.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None:
            continue
        positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
        assignments = [node for node, ctx in facts.of_type(ast.Assign) if ctx.function is init]
        for param, attr in init_stores(init, assignments).items():
            out[(klass.name, attr.split(".", 1)[1])] = (param, positional.index(param) if param in positional else None)
    return out


def _self_attribute_touched(facts: ScriptFacts, klass: ast.ClassDef, attr: str) -> bool:
    """Does the module assign `self.<attr>` more than once, or read it other than as a call of it (`.train()`,
    `.parameters()`, `requires_grad_`, handed to a call)?"""
    if sum(1 for a in facts.assignments if a.name == f"self.{attr}") != 1:
        return True
    for node, ctx in facts.of_type(ast.Attribute):
        if node.attr != attr or not isinstance(node.value, ast.Name) or node.value.id != "self" \
                or ctx.class_ is not klass or not isinstance(node.ctx, ast.Load):
            continue
        if not (isinstance(ctx.parent, ast.Call) and ctx.parent.func is node):
            return True
    return False


@decider("constructor-gets-pretrained")
def _decide_constructor_gets_pretrained(finding, project, params):
    """Keep the finding when the class is built by the other modules of the project, every call binding the
    parameter with a `from_pretrained` model that module never trains or freezes (ArgumentFact.pretrained)."""
    from ..facts.program_callers import pretrained_for_every_call

    return finding if pretrained_for_every_call(project.program, finding.path, params["klass"], params["param"],
                                                params["position"]) else None


def _callers_needs(facts: ScriptFacts, key, needs: Optional[tuple]) -> Optional[tuple]:
    """For a model that is a parameter of a module-level function, the callers in other modules decide too
    (`callers-may-freeze`); else `needs`."""
    if not (isinstance(key, Binding) and key.kind == "parameter"):
        return needs
    function = key.scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function not in facts.tree.body:
        return needs
    return ("callers-may-freeze", (("function", function.name), ("then", needs)))


@decider("callers-may-freeze")
def _decide_callers_may_freeze(finding, project, params):
    """Drop the finding when a caller of the function in another module may have frozen the model it passes
    (it freezes a model itself, or calls a project helper of a module that does: `freeze(teacher)`). Else
    the decision the finding needed besides."""
    from ..facts.program_callers import callers_may_freeze

    if callers_may_freeze(project.program, finding.path, params["function"]):
        return None
    return decide_then(finding, project, params["then"])


def _frozen_model_report(facts: ScriptFacts, model: SemanticModel, site: CallSite, key, target,
                         before: list) -> Optional[Report]:
    if _may_train(facts, model, key, target) or not _runs_another_model(facts, model, site, key):
        return None
    name, eval_call = ast.unparse(target), before[0].node
    span = facts.lines.span_of_node(eval_call)
    if not (isinstance(eval_call.func, ast.Attribute) and eval_call.func.attr == "eval"):
        return Report(site.node, f"{short(name, 24)} comes in eval mode from from_pretrained (line {eval_call.lineno}), "
                      f"yet {short(site.ctx.function.name, 24)}() records its graph; freeze it (.requires_grad_(False)) "
                      "or call it under torch.no_grad()")
    return Report(site.node, f"{short(name, 24)} is only in eval mode (line {eval_call.lineno}), yet "
                  f"{short(site.ctx.function.name, 24)}() records its graph; freeze it (.requires_grad_(False)) "
                  "or call it under torch.no_grad()",
                  fix=make_fix("freeze-eval-model", f"Freeze {short(name, 40)}: .eval().requires_grad_(False)",
                               Applicability.UNSAFE, row=span.start.row, column=span.start.column,
                               end_row=span.end.row, end_column=span.end.column))


# A frozen autoencoder's or encoder's own entry points (diffusers' AutoencoderKL.encode/decode, CLIP's
# get_*_features): run in a training step they record a graph as a forward does.
_FROZEN_METHODS = frozenset(("encode", "decode", "encode_image", "encode_text", "get_image_features",
                             "get_text_features"))


def _frozen_method_target(call: ast.Call) -> Optional[ast.expr]:
    """`vae.decode(z)` → `vae`; None for any other call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _FROZEN_METHODS and isinstance(func.value, (ast.Name, ast.Attribute)):
        return func.value
    return None


def _runs_another_model(facts: ScriptFacts, model: SemanticModel, site: CallSite, key) -> bool:
    """Does the training step also run another model (a student, a policy)? If not, the step's
    backward trains `key` itself (linear probing keeps a backbone in eval mode for its BatchNorm
    statistics, and a loss function is no model). A model `key` came to from `from_pretrained` counts
    as frozen beside any other object whose parameters the module hands an optimizer."""
    if _from_pretrained(key) and any(object_of(model, c.node.func.value) != key for c in facts.method_calls("parameters")):
        return True
    for call in model.calls_in(site.ctx.function):
        target = _forward_target(call)
        other = object_of(model, target) if target is not None else None
        if other is None or other == key or (isinstance(other, Binding) and other.kind in _NOT_MODELS):
            continue
        if _looks_like_a_model(model, target) or _TRAINED_NAMES.search(ast.unparse(target)):
            return True
    return False


# Models a training step trains next to a frozen one (distillation, RLHF, GANs).
_TRAINED_NAMES = re.compile(r"student|actor|policy|critic|generator|discriminator", re.IGNORECASE)


def _eval_modes(facts: ScriptFacts, model: SemanticModel) -> dict:
    """Model → the `.eval()` calls on it (`teacher.eval()`, `teacher = load(...).eval()`), or the
    `from_pretrained` call that bound it: transformers' and diffusers' `from_pretrained` return the
    model in eval mode."""
    found: dict = {}
    for site in facts.method_calls("eval"):
        call = site.node
        if not call.args and not call.keywords and isinstance(call.func, ast.Attribute):
            key = object_of(model, call.func.value)
            if key is not None:
                found.setdefault(key, []).append(site)
    for site in facts.method_calls("from_pretrained"):
        qualname = model.resolve(site.node.func) or ""
        if qualname.split(".")[0] not in ("transformers", "diffusers") or _NOT_A_MODEL.search(qualname):
            continue  # (a tokenizer, config, processor; a pipeline's __call__ runs under @torch.no_grad())
        outer = site.node  # `.from_pretrained(...).to(device)`: the same object (objects.SAME_OBJECT_METHODS)
        while isinstance(model.parent_of(outer), ast.Attribute) and model.parent_of(outer).attr in SAME_OBJECT_METHODS \
                and isinstance(model.parent_of(model.parent_of(outer)), ast.Call):
            outer = model.parent_of(model.parent_of(outer))
        statement = model.parent_of(outer)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            found.setdefault(site.node, [site])  # (object_of of a read of the name gives the from_pretrained call)
    return found


# `from_pretrained` of what is no module with parameters
_NOT_A_MODEL = re.compile(r"Tokenizer|Processor|Config|FeatureExtractor|Scheduler|Pipeline|GenerationConfig")


def _from_pretrained(key) -> bool:
    """Is the model (an `object_of` key, moves like `.to(device)` already looked through) a
    `from_pretrained` call?"""
    return isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "from_pretrained"


def _training_step_calls(facts: ScriptFacts) -> list[CallSite]:
    """Calls in functions that run a backward, or in Lightning's `training_step`, in source order."""
    steps = {site.ctx.function for name in _BACKWARD for site in facts.method_calls(name)}
    steps = {f for f in steps if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    steps |= {node for node, _ in facts.of_type(ast.FunctionDef) if node.name in _TRAINING_HOOKS}
    return sorted((s for s in facts.calls if s.ctx.function in steps), key=lambda s: (s.node.lineno, s.node.col_offset))


def _may_train(facts: ScriptFacts, model: SemanticModel, key, target: ast.expr) -> bool:
    """The module may train or freeze the model: calls `.train()`, `.parameters()` (for an optimizer,
    or to freeze them one by one), `requires_grad_` on it or on the object that holds it
    (`self.parameters()` for `self.teacher`), or hands it to a call dslint does not follow
    (`freeze(teacher)`, `DDP(teacher)`); a parameter counts with what this module's callers pass."""
    keys, passing = object_with_arguments(model, key)
    holder = self_class(model, target.value) if isinstance(target, ast.Attribute) else None
    for site in facts.calls:
        call, func = site.node, site.node.func
        if isinstance(func, ast.Attribute) and func.attr in _TRAINS_OR_FREEZES:
            if object_of(model, func.value) in keys or (holder and self_class(model, func.value) is holder):
                return True
        if call in passing:
            continue
        arguments = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
        if any(not isinstance(a, ast.Constant) and object_of(model, a) in keys for a in arguments):
            return True
    return False


@codemod_fixer("freeze-eval-model")
def _freeze_eval_model(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"], params["end_row"], params["end_column"])
    if call is None or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "eval":
        return None
    frozen = cst.Call(func=cst.Attribute(value=call, attr=cst.Name("requires_grad_")), args=[cst.Arg(cst.Name("False"))])
    return module.deep_replace(call, frozen)
