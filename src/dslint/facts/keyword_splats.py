"""The keywords a call passes through `**X`, where X is a dict known by value.

`DeepSpeedStrategy(**STRATEGY_KW)`, `DeepSpeedPlugin(**{**BASE_KW, "offload_param_device": "cpu"})`:
X is a dict literal, `dict(k=v, **other)`, `A | B`, `{**A, "k": v}` merges of those, or a name bound
once to one and never changed (a module constant of this module, or one a project module exports:
`from conf import BASE_KW`, resolved in the project phase from `ModuleExports.keyword_dicts`). Its
keys become keywords of the call; inside a dict display later keys win, as in Python; the same key
given twice at the call itself is a TypeError, so its value is not known. A part whose keys cannot
be seen (`**kwargs` of a parameter, a computed key, a dict changed with `.update()`) makes the call
`open`: the keywords before it in the same dict are unknown, any other keyword may be present.
Values are literals, constants of the module, or `NotLiteral` (present, value unknown; never
absent).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..sources.names import is_library
from .config_dicts import NotLiteral, overwritten

_MAX_KEYS = 64  # a module dict with more keys is a table, not keywords: not exported
_MAX_DEPTH = 4


@dataclass(frozen=True)
class ImportedDict:
    """`**BASE_KW` with `from conf import BASE_KW`: the dict that project module binds the name to."""

    local: str


@dataclass(frozen=True)
class OpenKeys:
    """A part whose keys are not known (`**kwargs`, a computed key, a dict that may change)."""

    what: str


@dataclass(frozen=True)
class CallKeywords:
    """A call's keywords: `groups` holds one (span, parts) per keyword or `**` argument of the call,
    `parts` a tuple of dicts (name -> value), ImportedDict and OpenKeys merged in order."""

    groups: tuple

    @property
    def pending(self) -> bool:
        """Some part is a dict of another module, not resolved yet."""
        return any(isinstance(p, ImportedDict) for _, parts in self.groups for p in parts)

    def merged(self) -> tuple[dict, dict, bool]:
        """(name -> value, name -> span of the keyword or `**` that gives it, open). An ImportedDict
        still pending counts as OpenKeys."""
        values: dict = {}
        spans: dict = {}
        is_open = False
        for span, parts in self.groups:
            mine: dict = {}
            for part in parts:
                if isinstance(part, dict):
                    mine.update(part)
                else:  # keys not known: those before may be overwritten with anything
                    mine = {name: NotLiteral(f"maybe set by {_what(part)}") for name in mine}
                    is_open = True
            for name, value in mine.items():
                if name in values:
                    value = NotLiteral(f"{name} given twice")  # TypeError at the call
                values[name] = value
                spans[name] = span
        return values, spans, is_open


def _what(part: Any) -> str:
    return part.what if isinstance(part, OpenKeys) else f"**{part.local}"


def module_constant(model) -> Callable[[ast.AST], Any]:
    """`known` for `call_keywords`: a value's constant through the module (values.traced_constant), UNKNOWN
    when it is a command-line default, which a launch line may override."""
    from .values import UNKNOWN, traced_constant

    def known(expr: ast.AST) -> Any:
        traced = traced_constant(model, expr)
        return UNKNOWN if traced.options else traced.value

    return known


def call_keywords(model, call: ast.Call, known: Callable[[ast.AST], Any], unknown: Any, span_of) -> CallKeywords:
    """The keywords of `call` (see the module docstring); `known(expr)` gives a value's constant or
    `unknown`, `span_of(node)` a Span."""
    groups = []
    for kw in call.keywords:
        if kw.arg is not None:
            groups.append((span_of(kw), ({kw.arg: _leaf(kw.value, known, unknown)},)))
        else:
            groups.append((span_of(kw), tuple(dict_parts(model, kw.value, known, unknown))))
    return CallKeywords(tuple(groups))


def _leaf(expr: ast.AST, known: Callable[[ast.AST], Any], unknown: Any) -> Any:
    value = known(expr)
    if value is unknown:
        text = ast.unparse(expr)
        return NotLiteral(text if len(text) <= 40 else text[:39] + "…")
    return value


def dict_parts(model, expr: ast.AST, known: Callable[[ast.AST], Any], unknown: Any, depth: int = 0,
               changed: Optional[Callable] = None) -> list:
    """The parts of the dict `expr` evaluates to, in merge order. `changed(binding, use)`: the key paths
    the module assigns in the dict a name binds, None when it may change otherwise (default:
    config_dicts.overwritten)."""
    if depth > _MAX_DEPTH:
        return [OpenKeys("a dict nested too deep")]
    if isinstance(expr, ast.Dict):
        parts: list = []
        current: dict = {}
        for key, value in zip(expr.keys, expr.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                current[key.value] = _leaf(value, known, unknown)
                continue
            if current:
                parts.append(current)
                current = {}
            parts += dict_parts(model, value, known, unknown, depth + 1, changed) if key is None else \
                [OpenKeys(f"the key {ast.unparse(key)[:30]}")]
        return parts + [current] if current else parts
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict" \
            and not model.reaching("dict", expr.func) and len(expr.args) <= 1 \
            and not any(isinstance(a, ast.Starred) for a in expr.args):
        parts = dict_parts(model, expr.args[0], known, unknown, depth + 1, changed) if expr.args else []
        for kw in expr.keywords:
            if kw.arg is None:
                parts += dict_parts(model, kw.value, known, unknown, depth + 1, changed)
            else:
                parts.append({kw.arg: _leaf(kw.value, known, unknown)})
        return parts
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return dict_parts(model, expr.left, known, unknown, depth + 1, changed) + \
            dict_parts(model, expr.right, known, unknown, depth + 1, changed)
    if isinstance(expr, ast.Name):
        return _named_parts(model, expr, known, unknown, depth, changed)
    return [OpenKeys(ast.unparse(expr)[:40])]


def _named_parts(model, expr: ast.Name, known, unknown, depth: int, changed) -> list:
    binding = model.binding_of(expr)
    if binding is None:
        return [OpenKeys(expr.id)]
    if binding.kind == "from-import":
        top = (binding.qualname or "").split(".")[0]
        if is_library(top):
            return [OpenKeys(expr.id)]
        head = [ImportedDict(expr.id)]
    elif binding.kind == "assignment" and binding.index is None and binding.value is not None \
            and model.values_of(expr) == [binding.value]:
        head = dict_parts(model, binding.value, known, unknown, depth + 1, changed)
    else:
        return [OpenKeys(expr.id)]
    paths = (changed or overwritten)(model, binding, expr)  # `KW["stage"] = 3` elsewhere: not the literal's
    if paths is None:
        return [OpenKeys(f"{expr.id}, which the module may change")]
    return head + [{path[0]: NotLiteral(f"{expr.id}[{path[0]!r}] set elsewhere")} for path in paths]


# -- module dicts other modules import -------------------------------------------------------------
def _keyword_dict_shape(value: ast.AST) -> bool:
    """Cheap: a dict literal with identifier keys (or `**` entries), or `dict(k=v, ...)`."""
    if isinstance(value, ast.Dict):
        return bool(value.keys) and len(value.keys) <= _MAX_KEYS and all(
            k is None or isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
            for k in value.keys)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
        and not value.args and 0 < len(value.keywords) <= _MAX_KEYS


def _small(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float)) or isinstance(value, str) and len(value) <= 200


def keyword_dicts(facts, model) -> dict:
    """NAME -> parts (a tuple, as `dict_parts`) of each module-level `NAME = dict(...)` / `{...}` with
    identifier keys that is the name's only binding and that the module never changes; values are
    constants of the module (not command-line defaults), others NotLiterals, as are large ones (the
    summary is pickled and cached)."""
    candidates = [stmt for stmt in facts.tree.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], ast.Name) and _keyword_dict_shape(stmt.value)]
    if not candidates:
        return {}
    from .values import UNKNOWN, traced_constant

    unknown = UNKNOWN

    def unchanged(model, binding, use) -> Optional[list]:
        """Cheap, by the text (config_dicts.overwritten builds every scope of the module): [] when each
        other mention of the name is a `**NAME`, which only reads it; else None (not exported)."""
        mentions = _mentions(facts.text, binding.name)
        return [] if all(facts.text[start - 2:start] == "**" for start in mentions[1:]) else None

    def small(expr: ast.AST) -> Any:
        traced = traced_constant(model, expr)
        return traced.value if not traced.options and _small(traced.value) else unknown

    out: dict = {}
    for stmt in candidates:
        name = stmt.targets[0]
        bindings = model.own_scope(facts.tree).bindings.get(name.id, [])
        if len(bindings) != 1 or bindings[0].value is not stmt.value:
            continue
        if unchanged(model, bindings[0], None) is None:
            continue
        out[name.id] = tuple(dict_parts(model, stmt.value, small, unknown, 1, unchanged))
    return out


def _mentions(text: str, name: str) -> list:
    """Where the identifier `name` occurs as a whole word (what `\\bNAME\\b` finds), by `str.find`: the
    regex scan of the whole module per candidate was the slowest part of `keyword_dicts`."""
    def word(char: str) -> bool:
        return char.isalnum() or char == "_"

    found, size, start = [], len(name), text.find(name)
    while start != -1:
        end = start + size
        if not (start and word(text[start - 1])) and not (end < len(text) and word(text[end])):
            found.append(start)
        start = text.find(name, start + 1)
    return found


def resolved(program, importer: str, keywords: CallKeywords, depth: int = 0) -> CallKeywords:
    """`keywords` with each ImportedDict replaced by the parts of the dict the project module binds it
    to (`ProgramIndex.exported_constant`, through re-exports), or by OpenKeys when no project module shows one."""

    groups = []
    for span, parts in keywords.groups:
        groups.append((span, tuple(_resolve_parts(program, importer, parts, depth))))
    return CallKeywords(tuple(groups))


def _resolve_parts(program, importer: str, parts: tuple, depth: int) -> list:
    out: list = []
    for part in parts:
        if not isinstance(part, ImportedDict):
            out.append(part)
            continue
        found = program.exported_constant(importer, part.local, "keyword_dicts") if depth < 3 else None
        if found is None:
            out.append(OpenKeys(f"**{part.local}"))
            continue
        target, _, inner = found
        out += _resolve_parts(program, target, inner, depth + 1)
    return out
