"""DeepSpeed configs written as Python dicts: in the script, in a module constant, or returned by a
function (`get_ds_config(micro, stage=3)` in another module).

A dict built from literals and parameters is a `DictTemplate`: its leaves are literals, `Param`s
(a parameter of the function that returns it) or `NotLiteral`s (anything else the module computes).
Evaluated with a call's arguments and the function's defaults (`evaluate`) it is the config the job
uses. A key whose value is not known (a parameter given a non-literal argument, `args.micro_batch`)
stays in the dict as a `NotLiteral`: present with an unknown value, never absent (absent would mean
DeepSpeed's default). Rules that need the number see a non-number and say nothing. Three NotLiterals
become values in the project phase: an `ImportedName` (a constant of another module of the project),
a `Computed` (arithmetic on leaves known only then, `hidden * hidden` of a parameter) and an `OptionLeaf`
(a command-line default, kept when no launch line passes the option); any left unresolved stays unknown.

Each template keeps where every key is written (`spans`: key path -> the span of `"key": value`), so a
rule reports a dict config in the .py file at its key, as it reports a JSON config at its pair.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..model import Location, Span

# A dict is a DeepSpeed config template only if it has one of these top-level keys (most dicts of a
# program are not configs, and the summaries of every function are pickled and cached).
DEEPSPEED_KEYS = frozenset(("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                            "zero_optimization"))


@dataclass(frozen=True)
class Param:
    """A leaf that is the value of a parameter of the function returning the dict."""

    name: str


@dataclass(frozen=True)
class NotLiteral:
    """A leaf whose value the files do not show (a command-line option, a computed value)."""

    what: str  # the expression as written (shortened)

    def __repr__(self) -> str:
        return f"<{self.what}>"


@dataclass(frozen=True, repr=False)
class ImportedName(NotLiteral):
    """A leaf that is a name another module of the project defines (`"stage": ZERO_STAGE` with `from
    constants import ZERO_STAGE`, or `constants.ZERO_STAGE`): unknown until the linker reads that module's
    constant (`resolve_leaves`); `local` is the name as the module writes it."""

    local: str = ""


@dataclass(frozen=True, repr=False)
class Computed(NotLiteral):
    """Arithmetic on leaves not all known when the module is read (`hidden * hidden` of a parameter, `2 *
    ZERO_STAGE` of an imported name): folded once they are (`substitute`, `resolve_leaves`); `op` is the
    operator's ast class name, `parts` its operands (one for a unary operator)."""

    op: str = ""
    parts: tuple = ()


@dataclass(frozen=True, repr=False)
class OptionLeaf(NotLiteral):
    """A leaf taken from command-line defaults (`{"enabled": args.bf16}`): `default` holds unless a launch
    line passes one of `options` (then the value is unknown); the linker decides (`given_options`)."""

    default: Any = None
    options: tuple = ()
    # an argparse option with neither `type=` nor an action: whatever a launch line passes, the value is that
    # word as a string (`--micro-bs 8` gives "8"); `given_options` reads it
    text: bool = False


@dataclass(frozen=True, repr=False)
class ParamField(NotLiteral):
    """A leaf that is an attribute of a parameter of the returning function (`args.micro_batch` of
    `def get_ds_config(args)`): known once the call binds the parameter to a command-line namespace
    (`OptionNamespace`, in `substitute`); unknown otherwise."""

    param: str = ""
    attr: str = ""


@dataclass(frozen=True)
class OptionNamespace:
    """An argument that is the script's `parser.parse_args()` namespace: dest -> (default, options, text) of
    the options whose default is a literal and which nothing in the module assigns afterwards (`text`: the
    option has no `type=` and no action, so a passed value is a string)."""

    defaults: tuple  # ((dest, default, options, text), ...)


def given_options(value: Any, given: Callable[[tuple], Optional[bool]],
                  passed: Optional[Callable[[tuple], Optional[str]]] = None) -> Any:
    """`value` with each OptionLeaf replaced by its default where `given(options)` is False (no launch
    line passes one), and by the word the line passes for an option whose value is that text (`passed`:
    the literal word, None when not known) or the int it spells for an option whose default is an int;
    it stays unknown otherwise."""
    if isinstance(value, dict):
        return {k: given_options(v, given, passed) for k, v in value.items()}
    if isinstance(value, OptionLeaf):
        was_given = given(value.options)
        if was_given is False:
            return value.default
        word = passed(value.options) if was_given and passed is not None else None
        if word is None:
            return value
        if value.text:
            return word
        # (`--micro 4` of an option whose default is an int: the int it parses to)
        return int(word) if _INT_WORD.fullmatch(word) and type(value.default) is int else value
    return value


_INT_WORD = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class DictTemplate:
    """A dict literal whose keys are all strings; `spans` holds (key path, span of `"key": value`).
    `defaults`: (parameter, leaf) of the returning function's parameters whose default is no literal but a
    module constant, an imported name or arithmetic on them (`hidden=HIDDEN`): the linker binds them."""

    value: dict
    spans: tuple
    span: Span  # the whole dict
    defaults: tuple = ()
    # `{**BASE, **PRESETS[precision]}` as the dict's last entry: (parameter, ((key, value, spans), ...)), the
    # module-level dict of dicts it picks from by a parameter's value (`chosen` applies it once bound)
    choice: Optional[tuple] = None


def chosen(template: DictTemplate, value: dict, bound: dict) -> tuple[dict, dict]:
    """(the template's substituted `value` with its parameter-chosen entries merged, its key spans): the
    entries of the choice the bound value names; when the value is not known, every key a choice writes is
    present with an unknown value."""
    spans = dict(template.spans)
    if template.choice is None:
        return value, spans
    param, options = template.choice
    picked = bound.get(param)
    out = dict(value)
    for key, entries, entry_spans in options:
        if picked == key:
            out.update(entries)
            spans.update(entry_spans)
            return out, spans
    if isinstance(picked, (str, int)) and not isinstance(picked, bool):
        return value, spans  # (a key the table lacks: Python raises KeyError; nothing to read)
    for _, entries, _ in options:
        out.update({k: NotLiteral(f"chosen by {param}") for k in entries})
    return out, spans


def is_config_dict(node: ast.AST) -> bool:
    """A dict literal with a DeepSpeed top-level key (cheap: its keys only)."""
    return isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value in DEEPSPEED_KEYS for k in node.keys)


def template_of(node: ast.Dict, lines, leaf: Callable[[ast.AST], Any],
                merged: Optional[Callable[[ast.AST], Optional[ast.Dict]]] = None) -> Optional[DictTemplate]:
    """The template of a dict literal; `leaf(expr)` gives a value that is not a dict literal (a literal,
    a Param or a NotLiteral). `merged(expr)`: the dict literal a `**expr` entry stands for, when the
    caller can prove one (a module constant nothing changes); its keys come in at that place, later
    keys winning as in Python. None when a key is not a string or `**other` merges keys it cannot see."""
    spans: list = []

    def build(current: ast.Dict, path: tuple, depth: int = 0) -> Optional[dict]:
        out: dict = {}
        for key, value in zip(current.keys, current.values):
            if key is None and merged is not None and depth < 4:
                other = merged(value)
                inner = build(other, path, depth + 1) if isinstance(other, ast.Dict) else None
                if inner is None:
                    return None
                out.update(inner)
                continue
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # `**base` or a computed key: which keys the dict has is not known
            where = path + (key.value,)
            start = lines.offset_from_ast(key.lineno, key.col_offset)
            end = lines.offset_from_ast(value.end_lineno, value.end_col_offset)
            spans.append((where, lines.span(start, end)))
            if isinstance(value, ast.Dict):
                inner = build(value, where, depth)
                if inner is None:
                    return None
                out[key.value] = inner
            else:
                out[key.value] = leaf(value)
        return out

    value = build(node, ())
    return DictTemplate(value, tuple(spans), lines.span_of_node(node)) if value is not None else None


def literal_leaf(expr: ast.AST, known: Callable[[ast.AST], Any], params: frozenset = frozenset(),
                 unknown: Any = None, model=None, depth: int = 0) -> Any:
    """A leaf as `template_of` wants it: a parameter's name is a Param, `known(expr)` (a literal, a module
    constant) its value; anything else (`unknown` is what `known` gives for that) a NotLiteral. With the
    module's `model`, a name imported from a project module is an ImportedName, and arithmetic on leaves
    not known yet (a Param, an ImportedName) a Computed."""
    if isinstance(expr, ast.Name) and expr.id in params:
        return Param(expr.id)
    value = known(expr)
    if value is not unknown:
        return value
    text = ast.unparse(expr)
    text = text if len(text) <= 40 else text[:39] + "…"
    if model is not None and depth < 8:
        if isinstance(expr, (ast.Name, ast.Attribute)):
            local = project_import(model, expr)
            if local is not None:
                return ImportedName(text, local)
        operands = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else [expr.operand] \
            if isinstance(expr, ast.UnaryOp) else []
        if operands and type(expr.op).__name__ in _OPERATORS:
            parts = tuple(literal_leaf(p, known, params, unknown, model, depth + 1) for p in operands)
            return fold(type(expr.op).__name__, parts, text)
    return NotLiteral(text)


def project_import(model, expr: ast.AST) -> Optional[str]:
    """`NAME` of `from constants import NAME`, or `constants.NAME` of `import constants`, a module of the
    project (not a library): the name as written; None otherwise."""
    from ..sources.names import is_library

    name = expr if isinstance(expr, ast.Name) else expr.value if isinstance(expr, ast.Attribute) else None
    if not isinstance(name, ast.Name):
        return None
    binding = model.binding_of(name)
    if binding is None or binding.kind != ("from-import" if name is expr else "import"):
        return None
    qualname = binding.qualname or ""
    if not qualname.startswith(".") and is_library(qualname.split(".")[0]):
        return None
    return name.id if name is expr else f"{name.id}.{expr.attr}"


_OPERATORS = {
    "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mult": lambda a, b: a * b, "Div": lambda a, b: a / b,
    "FloorDiv": lambda a, b: a // b, "Mod": lambda a, b: a % b,
    "Pow": lambda a, b: a ** b if abs(b) <= 64 and abs(a) < 2 ** 64 else None,
    "USub": lambda a: -a, "UAdd": lambda a: +a,
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def fold(op: str, parts: tuple, what: str) -> Any:
    """`op` applied to `parts` when every one is a number; a Computed while one is a Param, an
    ImportedName or a Computed; else a NotLiteral (a string, a value the files do not show)."""
    if all(_number(p) for p in parts):
        try:
            result = _OPERATORS[op](*parts)
        except (ArithmeticError, ValueError, TypeError):
            return NotLiteral(what)
        return result if _number(result) and abs(result) < 2 ** 96 else NotLiteral(what)
    if all(_number(p) or isinstance(p, (Param, ImportedName, Computed)) for p in parts):
        return Computed(what, op, parts)
    return NotLiteral(what)


def resolve_leaves(value: Any, imported: Callable[[str], Any]) -> Any:
    """`value` with each ImportedName replaced by `imported(local)` (its constant; None when no module
    defines one: it stays unknown) and each Computed folded where its parts are now known."""
    if isinstance(value, dict):
        return {k: resolve_leaves(v, imported) for k, v in value.items()}
    if isinstance(value, ImportedName):
        found = imported(value.local)
        return value if found is None else found
    if isinstance(value, Computed):
        return fold(value.op, tuple(resolve_leaves(p, imported) for p in value.parts), value.what)
    return value


def substitute(value: Any, bound: dict) -> Any:
    """The template's value with each Param replaced by its bound value, and each ParamField of a
    parameter bound to a command-line namespace by an OptionLeaf (the option's default)."""
    if isinstance(value, dict):
        return {k: substitute(v, bound) for k, v in value.items()}
    if isinstance(value, Param):
        return bound.get(value.name, NotLiteral(value.name))
    if isinstance(value, ParamField):
        namespace = bound.get(value.param)
        found = next((entry for entry in namespace.defaults if entry[0] == value.attr), None) \
            if isinstance(namespace, OptionNamespace) else None
        return OptionLeaf(value.what, found[1], found[2], *found[3:]) if found is not None else NotLiteral(value.what)
    if isinstance(value, Computed):
        return fold(value.op, tuple(substitute(p, bound) for p in value.parts), value.what)
    return value


def bind_arguments(params: tuple, kwonly: tuple, defaults: dict, args: tuple, keywords: dict,
                   no_value: Any) -> Optional[dict]:
    """parameter -> value for a call with `args` (positional values) and `keywords`, the function's
    literal `defaults` filling the rest (`no_value` marks a default that is not a literal); None when the
    call does not bind as Python would (too many arguments, a parameter given twice or not at all)."""
    if len(args) > len(params):
        return None
    bound = dict(zip(params, args))
    for name, value in keywords.items():
        if name in bound or (name not in params and name not in kwonly):
            return None
        bound[name] = value
    for name in params + kwonly:
        if name not in bound:
            if name not in defaults:
                return None
            default = defaults[name]
            bound[name] = NotLiteral(f"default of {name}") if default == no_value else default
    return bound


def config_dict_names(facts) -> frozenset:
    """The names the module ever assigns a config dict literal to (a cheap filter for `return cfg`)."""
    return frozenset(a.name for a in facts.assignments if is_config_dict(a.value))


def returned_template(returns: list, model, lines, literal: Callable[[ast.AST], Any], no_value: Any,
                      dict_names: Optional[frozenset] = None,
                      constants: Optional["ModuleDicts"] = None) -> Optional[DictTemplate]:
    """The template a function returns: its one `return {...}` (or `return cfg` with `cfg = {...}` read
    nowhere else, so nothing changes it in between), with its parameters as Params. `dict_names`:
    `config_dict_names` of the module, when the caller has it; `constants`: the module's dict constants,
    so `return {**BASE, **OFFLOAD}` merges them (`module_dicts`)."""
    if len(returns) != 1 or returns[0].value is None:
        return None
    expr = returns[0].value
    node = expr
    if isinstance(expr, ast.Name) and dict_names is not None and expr.id not in dict_names:
        return None
    if isinstance(expr, ast.Name):
        binding = model.binding_of(expr)
        if binding is None or binding.kind != "assignment" or model.uses_of(binding) != [expr]:
            return None  # `cfg["x"] = ...`, `cfg.update(...)`, or bound in branches
        node = binding.value
    if not (is_config_dict(node) or constants is not None and _merges_config(node, constants.dicts)
            or constants is not None and _chooses_config(node, constants.dicts)):
        return None
    function = model.parent_of(returns[0])
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        function = model.parent_of(function)
    arguments = function.args if function is not None else None
    params = frozenset(a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs) \
        if arguments is not None else frozenset()
    known = module_known(model, literal, no_value)

    def leaf(value: ast.AST) -> Any:
        if isinstance(value, ast.Name):
            found = model.binding_of(value)
            if found is not None and found.kind == "parameter":
                return Param(value.id)
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id in params:
            found = model.binding_of(value.value)  # `args.micro_batch` of a parameter `args`
            if found is not None and found.kind == "parameter":
                return ParamField(ast.unparse(value), value.value.id, value.attr)
        return literal_leaf(value, known, params, no_value, model)

    choice = None
    if constants is not None and node.keys and node.keys[-1] is None:
        choice = _parameter_choice(node.values[-1], params, constants, lines, leaf)
        if choice is not None:
            node = ast.Dict(keys=node.keys[:-1], values=node.values[:-1], lineno=node.lineno, col_offset=node.col_offset,
                            end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
    found = template_of(node, lines, leaf, merged=constants.merged if constants is not None else None)
    if found is not None and choice is not None:
        found = DictTemplate(found.value, found.spans, found.span, choice=choice)
    if found is None or arguments is None:
        return found
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)) + [
        (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    defaults = []
    for arg, default in pairs:  # (a default is evaluated where the def is: no parameter of its own)
        if literal(default) is no_value:
            value = literal_leaf(default, known, frozenset(), no_value, model)
            if not isinstance(value, NotLiteral) or isinstance(value, (ImportedName, Computed)):
                defaults.append((arg.arg, value))
    return DictTemplate(found.value, found.spans, found.span, tuple(defaults), found.choice) if defaults else found


def _parameter_choice(expr: ast.AST, params: frozenset, constants: "ModuleDicts", lines,
                      leaf: Callable[[ast.AST], Any]) -> Optional[tuple]:
    """`PRESETS[precision]`: a module-level dict bound once, never changed, whose keys are literals and whose
    values are dict literals or such module dicts, indexed by a parameter: (parameter, ((key, template value,
    spans), ...)); None for anything else."""
    if not (isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Name)
            and expr.slice.id in params):
        return None
    table = constants.merged(expr.value)
    if table is None or not table.keys:
        return None
    options = []
    for key, value in zip(table.keys, table.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, (str, int))):
            return None
        entries = value if isinstance(value, ast.Dict) else constants.merged(value)
        found = template_of(entries, lines, leaf, merged=constants.merged) if entries is not None else None
        if found is None:
            return None
        options.append((key.value, found.value, found.spans))
    return expr.slice.id, tuple(options)


_SCALARS = (bool, int, float, str)


def module_known(model, literal: Callable[[ast.AST], Any], no_value: Any) -> Callable[[ast.AST], Any]:
    """`literal`, or else the constant a name, attribute or arithmetic evaluates to through the module's
    bindings (`MICRO_BATCH = 2` bound once, `0.9 * HIDDEN * HIDDEN`): a number, string or bool that no
    command-line option or environment variable sets (values.traced_constant); else `no_value`."""
    from .values import UNKNOWN, traced_constant

    def known(expr: ast.AST) -> Any:
        value = literal(expr)
        if value is not no_value or not isinstance(expr, (ast.Name, ast.Attribute, ast.BinOp, ast.UnaryOp)):
            return value
        traced = traced_constant(model, expr)
        if traced.value is UNKNOWN or traced.options or traced.defaults or not isinstance(traced.value, _SCALARS):
            return no_value
        return traced.value

    return known


# Calls that only read a dict passed to them (or one of its methods): the config stays as written.
_READ_METHODS = frozenset(("get", "keys", "items", "values", "copy"))
_READING_CALLS = ("print", "len", "repr", "str", "dict", "sorted", "list", "isinstance", "json.", "logging.", "pprint.",
                  "copy.", "deepspeed.", "torch.", "transformers.", "accelerate.", "wandb.", "yaml.")


def overwritten(model, binding, consumer: ast.AST) -> Optional[list]:
    """The key paths the module assigns in the dict `binding` binds, other than by building it
    (`cfg["train_batch_size"] = args.bs * world`), so their values are not the literal's; None when the
    dict may change in a way the files do not show (`cfg.update(...)`, a key that is not a literal string,
    the dict passed to a project function, returned, or bound to another name)."""
    paths: list = []
    for use in model.uses_of(binding):
        if use is consumer:
            continue
        node, path = use, ()
        parent = model.parent_of(node)
        while isinstance(parent, ast.Subscript) and parent.value is node:
            key = parent.slice
            path = path + (key.value,) if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
            if path is None:
                break
            node, parent = parent, model.parent_of(parent)
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            if path is None or not path:
                return None
            paths.append(path)
            continue
        if not _reads_only(model, node, parent):
            return None  # cfg.update(...), cfg.setdefault(...), cfg["zero"].pop(...), f(cfg)
    return paths


def with_overwritten(value: dict, paths: list) -> dict:
    """`value` with each path's value replaced by a NotLiteral (assigned elsewhere in the module)."""
    out = dict(value)
    for path in paths:
        holder = out
        for key in path[:-1]:
            inner = holder.get(key)
            holder[key] = inner = dict(inner) if isinstance(inner, dict) else {}
            holder = inner
        holder[path[-1]] = NotLiteral(f"[{']['.join(repr(k) for k in path)}] set later")
    return out


class ModuleDicts:
    """The module-level `NAME = {...}` dicts of a module (`dicts`), and `merged(expr)`: the dict literal the
    name `expr` stands for (`**NAME`, `NAME[key]`, an entry of another such dict) when NAME is bound once and
    nothing but `expr` may change it (else None)."""

    def __init__(self, facts, model):
        self.model = model
        self.dicts = {stmt.targets[0].id: stmt.value for stmt in facts.tree.body if isinstance(stmt, ast.Assign)
                      and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                      and isinstance(stmt.value, ast.Dict)}
        self.tree = facts.tree

    def merged(self, expr: ast.AST) -> Optional[ast.Dict]:
        if not isinstance(expr, ast.Name) or expr.id not in self.dicts:
            return None
        model = self.model
        bound = model.own_scope(self.tree).bindings.get(expr.id, [])
        return bound[0].value if len(bound) == 1 and bound[0].value is self.dicts[expr.id] \
            and overwritten(model, bound[0], expr) == [] else None


def module_constants(facts, model, literal: Callable[[ast.AST], Any], no_value: Any,
                     constants: Optional[ModuleDicts] = None) -> dict:
    """name -> DictTemplate of each module-level `NAME = {...}` DeepSpeed config bound once (keys the module
    assigns afterwards are NotLiterals; a dict it may change otherwise is left out)."""
    out: dict = {}
    constants = constants or ModuleDicts(facts, model)
    dicts = constants.dicts
    candidates = [stmt for stmt in facts.tree.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], ast.Name) and (is_config_dict(stmt.value) or _merges_config(stmt.value, dicts))]
    if not candidates and not any(isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Dict, ast.DictComp))
                                  and _table_options(stmt, dicts) is not None for stmt in facts.tree.body):
        return out
    scope = model.own_scope(facts.tree)
    known = module_known(model, literal, no_value)
    merged = constants.merged

    for stmt in candidates:
        bindings = scope.bindings.get(stmt.targets[0].id, [])
        if len(bindings) != 1 or bindings[0].value is not stmt.value:
            continue
        paths = overwritten(model, bindings[0], None)
        found = template_of(stmt.value, facts.lines,
                            lambda leaf: literal_leaf(leaf, known, unknown=no_value, model=model),
                            merged=merged) if paths is not None else None
        if found is not None:
            out[stmt.targets[0].id] = DictTemplate(with_overwritten(found.value, paths), found.spans, found.span)
    for stmt in facts.tree.body:
        table = _table_options(stmt, dicts)
        if table is None:
            continue
        bindings = scope.bindings.get(stmt.targets[0].id, [])
        if len(bindings) != 1 or bindings[0].value is not stmt.value or overwritten(model, bindings[0], None) != []:
            continue
        options = [template_of(option, facts.lines, lambda leaf: literal_leaf(leaf, known, unknown=no_value, model=model),
                               merged=merged) for option in table]
        if options and all(o is not None for o in options):
            name = stmt.targets[0].id
            out[name + TABLE_ENTRY] = DictTemplate(_common(name, [o.value for o in options]), options[0].spans,
                                                   options[0].span)
    return out


# `config=PRESETS[args.preset]`: the export of a module dict of DeepSpeed configs is "PRESETS" + TABLE_ENTRY, the
# config every one of its entries shares (a key whose entries disagree is present with an unknown value)
TABLE_ENTRY = "[]"


def _table_options(stmt: ast.stmt, dicts: dict) -> Optional[list]:
    """The config dicts a module-level `NAME = {key: {...}, ...}` (literal keys) or `NAME = {k: {**BASE, ...}
    for k in ...}` holds as its entries; None when it is no such table."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    value = stmt.value
    if isinstance(value, ast.DictComp):
        options = [value.value]
    elif isinstance(value, ast.Dict) and value.keys and all(
            isinstance(k, ast.Constant) and isinstance(k.value, (str, int)) for k in value.keys):
        options = list(value.values)
    else:
        return None
    config = lambda option: isinstance(option, ast.Dict) and (is_config_dict(option) or _merges_config(option, dicts))
    return options if all(config(o) for o in options) else None


def _common(name: str, values: list) -> dict:
    """The keys every entry of a table writes, with the value they agree on (else a NotLiteral)."""
    first, out = values[0], {}
    for key in first:
        if not all(key in other for other in values[1:]):
            out[key] = NotLiteral(f"chosen from {name}")
        elif all(isinstance(other[key], dict) for other in values):
            out[key] = _common(name, [other[key] for other in values])
        elif all(other[key] == first[key] and type(other[key]) is type(first[key]) for other in values[1:]):
            out[key] = first[key]
        else:
            out[key] = NotLiteral(f"chosen from {name}")
    for other in values[1:]:
        for key in other:
            out.setdefault(key, NotLiteral(f"chosen from {name}"))
    return out


def _chooses_config(node: ast.AST, dicts: dict) -> bool:
    """`{**BASE, **PRESETS[name]}`: a merge whose first `**` entry is a module-level DeepSpeed config and whose
    last picks from a module-level dict."""
    return isinstance(node, ast.Dict) and len(node.keys) > 1 and node.keys[-1] is None and \
        _merges_config(ast.Dict(keys=node.keys[:-1], values=node.values[:-1]), dicts) and \
        isinstance(node.values[-1], ast.Subscript) and isinstance(node.values[-1].value, ast.Name) and \
        node.values[-1].value.id in dicts


def _merges_config(node: ast.Dict, dicts: dict) -> bool:
    """`{**BASE, **LARGE}`: a dict whose `**` entries are module-level dicts, one of them a DeepSpeed config."""
    return isinstance(node, ast.Dict) and any(
        key is None and isinstance(value, ast.Name) and value.id in dicts and is_config_dict(dicts[value.id])
        for key, value in zip(node.keys, node.values))


# -- a config built in program order: a base and the changes made to it before it is used ------------

@dataclass(frozen=True)
class ConfigLayer:
    """One step of building a config, in program order: `keys` written into the dict at `holder` (a dict
    literal's keys, `update(...)`'s argument or keywords, `cfg[k][k2] = v`), or every top-level key of a
    loaded file (`file`: `source` is its path as written) or of a module constant of the project that the
    script imports (`constant`: `source` is the local name) merged at `holder`. Later layers replace the
    keys they write, as `dict.update` does (no deep merge)."""

    kind: str  # keys | file | constant
    holder: tuple = ()
    value: Any = None  # keys: {key: template value} (literals, NotLiterals, dicts of them)
    spans: tuple = ()  # keys: ((key path under holder), span in the script)
    source: Optional[str] = None
    options: tuple = ()  # file: the command-line options whose default `source` is (a launch line names another)
    # a layer under `if args.zero3:` (or `if not ...:`, or its `else:`): (the test's leaf, an OptionLeaf or a
    # literal, and True where the layer applies when the test is false); the linker decides (`applies`)
    when: Optional[tuple] = None


def applies(layer: ConfigLayer, given: Callable[[tuple], Optional[bool]]) -> Optional[bool]:
    """Does this layer's test hold on a launch (`given(options)`: does the line pass one of them)? None when
    the launch line may pass the option the test reads."""
    if layer.when is None:
        return True
    test, negated = layer.when
    if isinstance(test, OptionLeaf):
        if given(test.options) is not False:
            return None
        test = test.default
    return bool(test) != negated


def _anchor(model, node: ast.AST) -> Optional[tuple]:
    """(the statement list holding node's statement, index): `with` blocks count as the statements they
    are in (their body always runs); None outside a statement list."""
    stmt = node
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = model.parent_of(stmt)
    while stmt is not None:
        parent = model.parent_of(stmt)
        if isinstance(parent, (ast.With, ast.AsyncWith)) and stmt in parent.body:
            stmt = parent
            continue
        for name in ("body", "orelse", "finalbody") if parent is not None else ():
            block = getattr(parent, name, None)
            if isinstance(block, list) and stmt in block:
                return id(block), block.index(stmt)
        return None
    return None


def _position(node: ast.AST) -> tuple:
    return node.lineno, node.col_offset


def dict_layers(node: ast.Dict, holder: tuple, lines, leaf: Callable[[ast.AST], Any],
                splat: Callable[[ast.AST, tuple], Optional[list]]) -> Optional[list]:
    """The layers of a dict literal, entry by entry: runs of literal keys are `keys` layers, `**X` is what
    `splat(X, holder)` says it holds; None when a key is computed or a splat is not known."""
    layers: list = []
    run: list = []

    def flush() -> bool:
        if not run:
            return True
        part = ast.copy_location(ast.Dict(keys=[k for k, _ in run], values=[v for _, v in run]), node)
        part.end_lineno, part.end_col_offset = node.end_lineno, node.end_col_offset
        found = template_of(part, lines, leaf)
        run.clear()
        if found is None:
            return False
        layers.append(ConfigLayer("keys", holder, found.value, found.spans))
        return True

    for key, value in zip(node.keys, node.values):
        if key is None:
            inner = splat(value, holder) if flush() else None
            if inner is None:
                return None
            layers += inner
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            run.append((key, value))
        else:
            return None
    return layers if flush() else None


def _key_path(model, node: ast.AST) -> tuple:
    """(the outermost subscript of `cfg["a"]["b"]` above the use `node`, ("a", "b")); the path is None when
    a key is not a literal string."""
    path: Optional[tuple] = ()
    parent = model.parent_of(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        key = parent.slice
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return node, None
        path = path + (key.value,)
        node, parent = parent, model.parent_of(parent)
    return node, path


def changes_in_order(model, binding, consumer: ast.AST, lines, leaf: Callable[[ast.AST], Any],
                     splat: Callable[[ast.AST, tuple], Optional[list]]) -> Optional[list]:
    """The layers the module adds to the dict `binding` binds before `consumer` (a use of it) reads it:
    `cfg.update({...})`, `cfg.update(k=v)`, `cfg["a"]["b"] = v`, `cfg["a"].update(...)`, each a statement of
    the block the binding is in (or of a `with` in it), after the binding and before the consumer. Reads
    (`cfg.get(...)`, `print(cfg)`, `{**cfg}`) are no change. None when the dict may change otherwise: under
    a branch or in a loop of its own, after the consumer, in a call that takes it, `update` with what
    `splat` does not know, `del`, `+=`, `setdefault`, `pop`."""
    home = _anchor(model, binding.node)
    if home is None:
        return None
    found: list = []
    for use in model.uses_of(binding):
        if use is consumer:
            continue
        node, path = _key_path(model, use)
        parent = model.parent_of(node)
        if path is None:
            return None
        change: Optional[list] = None
        if isinstance(getattr(node, "ctx", None), ast.Store) and path and isinstance(parent, ast.Assign) \
                and parent.targets == [node]:
            value = parent.value
            if isinstance(value, ast.Dict):
                inner = template_of(value, lines, leaf)
                if inner is None:
                    return None
                spans = ((path[-1:], lines.span_of_node(parent)),) + tuple(
                    (path[-1:] + p, s) for p, s in inner.spans)
                change = [ConfigLayer("keys", path[:-1], {path[-1]: inner.value}, spans)]
            else:
                change = [ConfigLayer("keys", path[:-1], {path[-1]: leaf(value)},
                                      ((path[-1:], lines.span_of_node(parent)),))]
            where = parent
        elif isinstance(parent, ast.Attribute) and parent.attr == "update" and \
                isinstance(model.parent_of(parent), ast.Call) and model.parent_of(parent).func is parent:
            call = model.parent_of(parent)
            if not isinstance(model.parent_of(call), ast.Expr) or len(call.args) > 1:
                return None
            change = []
            if call.args:
                arg = call.args[0]
                inner = dict_layers(arg, path, lines, leaf, splat) if isinstance(arg, ast.Dict) else splat(arg, path)
                if inner is None:
                    return None
                change += inner
            for kw in call.keywords:
                if kw.arg is None:
                    return None
                if isinstance(kw.value, ast.Dict):
                    inner = template_of(kw.value, lines, leaf)
                    if inner is None:
                        return None
                    value, spans = inner.value, tuple(((kw.arg,) + p, s) for p, s in inner.spans)
                else:
                    value, spans = leaf(kw.value), ()
                span = lines.span(lines.offset_from_ast(kw.lineno, kw.col_offset),
                                  lines.offset_from_ast(kw.value.end_lineno, kw.value.end_col_offset))
                change.append(ConfigLayer("keys", path, {kw.arg: value}, ((((kw.arg,), span),) + spans)))
            where = call
        elif _reads_only(model, node, parent):
            continue
        else:
            return None
        anchor = _anchor(model, where)
        when = None
        if anchor is not None and anchor[0] != home[0]:
            branch = _option_branch(model, where, leaf)
            if branch is not None:
                when, test_statement = branch
                anchor = _anchor(model, test_statement)
                change = [dataclasses.replace(layer, when=when) for layer in change]
        if anchor is None or anchor[0] != home[0] or _position(where) < _position(binding.node) \
                or _position(where) > _position(consumer):
            return None
        found.append((_position(where), change))
    return [layer for _, change in sorted(found, key=lambda item: item[0]) for layer in change]


def _option_branch(model, where: ast.AST, leaf: Callable[[ast.AST], Any]) -> Optional[tuple]:
    """((test leaf, negated), the `if` statement) when `where`'s statement is directly in the body or the
    `else:` of an `if` whose test is a command-line option or a constant (`if args.zero3:`, `if not
    args.offload:`, `if USE_BF16:`); None for any other test."""
    stmt = where
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = model.parent_of(stmt)
    parent = model.parent_of(stmt) if stmt is not None else None
    if not isinstance(parent, ast.If) or not (stmt in parent.body or stmt in parent.orelse):
        return None
    test, negated = parent.test, stmt in parent.orelse
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    if not isinstance(test, (ast.Name, ast.Attribute)):
        return None
    value = leaf(test)
    if isinstance(value, OptionLeaf) or (not isinstance(value, NotLiteral) and isinstance(value, (bool, int, str))):
        return (value, negated), parent
    return None


def _reads_only(model, node: ast.AST, parent: Optional[ast.AST]) -> bool:
    """Does this use of a dict only read it (as `overwritten` counts reads)?"""
    if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
        return False
    if isinstance(parent, ast.Attribute):
        call = model.parent_of(parent)
        return isinstance(call, ast.Call) and call.func is parent and parent.attr in _READ_METHODS
    if isinstance(parent, (ast.Compare, ast.FormattedValue, ast.Expr, ast.Starred)) or (
            isinstance(parent, ast.keyword) and parent.arg is None):
        return True
    if isinstance(parent, ast.Dict) and any(k is None and v is node for k, v in zip(parent.keys, parent.values)):
        return True  # `{**cfg, ...}` copies its keys into a new dict
    call = parent if isinstance(parent, ast.Call) else model.parent_of(parent) if isinstance(parent, ast.keyword) \
        else None
    if isinstance(call, ast.Call) and call.func is not node:
        name = model.resolve(call.func) or ""
        if not name and isinstance(call.func, ast.Name) and model.binding_of(call.func) is None:
            name = call.func.id  # a builtin: `sorted(PRESETS)`
        return name.startswith(_READING_CALLS) or name in _READING_CALLS
    return False


# -- a dict config as a config document ------------------------------------------------------------

@dataclass
class DictNode:
    """A key of a dict config, shaped like sources.dsconfig.JsonNode: `span` and `pair_span` are both
    `"key": value` (the template keeps no separate value span), `key_span` the quoted key."""

    value: Any
    span: Span
    key_span: Optional[Span] = None
    pair_span: Optional[Span] = None
    children: dict = field(default_factory=dict)
    kind: str = "value"


def _key_span(key: str, pair: Span, quoted: bool = True) -> Optional[Span]:
    """The quoted key at the start of `"key": value` (a plain one for YAML's `key: value`), when its length
    shows in the key itself (no escapes, one line); else None (rules then point at the pair)."""
    if not key.isascii() or not key.replace("_", "").replace("-", "").replace(".", "").isalnum():
        return None
    width = len(key) + 2 * quoted
    if pair.end_offset - pair.start_offset < width:
        return None
    return Span(pair.start, Location(pair.start.row, pair.start.column + width), pair.start_offset,
                pair.start_offset + width)


class DictDoc:
    """A DeepSpeed config written as a Python dict, read as a config document (what config rules read:
    `value`, `node(path)`, `walk()`, `strict`), reported in the .py file `path` at its keys.

    Never strict: no JSON fix rewrites Python source. A NotLiteral leaf is a key whose value the files do
    not show (`unknown(path)`): rules that need the value say nothing, the key still counts as present."""

    strict = False
    in_python = True
    duplicate_keys: tuple = ()  # a repeated key in a dict literal: Python keeps the last, DeepSpeed sees one

    def __init__(self, path: str, value: dict, key_spans: dict, quoted: bool = True):
        self.path, self.value = path, value
        self.text = None
        pairs = [span for key, span in key_spans.items() if len(key) == 1] or list(key_spans.values())
        start, end = min(pairs, key=lambda s: s.start_offset), max(pairs, key=lambda s: s.end_offset)
        whole = Span(start.start, end.end, start.start_offset, end.end_offset)
        self.root = DictNode(value, whole, kind="object")
        for key in sorted(key_spans, key=len):
            parent = self.node(key[:-1])
            holder = parent.value if parent is not None else None
            if not isinstance(holder, dict) or key[-1] not in holder:
                continue  # replaced by a NotLiteral (`cfg["zero_optimization"] = ...` later)
            child_value = holder[key[-1]]
            pair = key_spans[key]
            parent.children[key[-1]] = DictNode(child_value, pair, _key_span(key[-1], pair, quoted), pair,
                                                kind="object" if isinstance(child_value, dict) else "value")

    def node(self, path: tuple) -> Optional[DictNode]:
        node = self.root
        for key in path:
            node = node.children.get(key)
            if node is None:
                return None
        return node

    def walk(self):
        """Yield (path, node) for every node, depth first."""
        stack = [((), self.root)]
        while stack:
            path, node = stack.pop()
            yield path, node
            for key, child in reversed(list(node.children.items())):
                stack.append((path + (key,), child))

    def unknown(self, path: tuple) -> bool:
        """Whether the value at `path`, or at a key above it, is one the files do not show."""
        value = self.value
        for key in path:
            if isinstance(value, NotLiteral):
                return True
            if not isinstance(value, dict) or key not in value:
                return False
            value = value[key]
        return isinstance(value, NotLiteral)

    def has_unknown(self, path: tuple = ()) -> bool:
        """Whether any value at or under `path` is not shown (a cross-key check there cannot be sure)."""
        stack = [self.value]
        for key in path:
            stack = [stack[0].get(key)] if isinstance(stack[0], dict) else []
        while stack:
            value = stack.pop()
            if isinstance(value, NotLiteral):
                return True
            if isinstance(value, dict):
                stack.extend(value.values())
        return False


def dict_documents(setups) -> list:
    """(DictDoc, [setups]) for every config written as a Python dict that `setups` link (with its key
    spans), or built in program order (an OverlayDoc), once per dict and value: a dict that several
    launches link is one document."""
    found: dict = {}
    for setup in setups:
        cfg = setup.config
        overlay = getattr(cfg, "overlay", None)
        if overlay is not None:  # built in program order (config_overlays): its own document
            key = ("overlay", setup.script_path, cfg.ref_span.start_offset, repr(cfg.value))
            found.setdefault(key, (overlay, []))[1].append(setup)
            continue
        if cfg.path is not None or not cfg.key_spans or not cfg.key_path or not isinstance(cfg.value, dict):
            continue
        key = (cfg.key_path, min(s.start_offset for s in cfg.key_spans.values()), repr(cfg.value))
        if key not in found:
            quoted = not cfg.key_path.endswith((".yaml", ".yml"))  # (a YAML config read with yaml.safe_load)
            found[key] = (DictDoc(cfg.key_path, cfg.value, cfg.key_spans, quoted), [])
        found[key][1].append(setup)
    return list(found.values())
