"""Turning fix descriptors into edits, and edits into new file contents.

A `Fix` names a fixer registered here and carries plain parameters; the edits are built only
when needed. Python fixers are libcst codemods (`codemod_fixer`): they rewrite the module and
the result is reduced to the smallest byte range that changed, so every other byte of the file
stays as it was.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from .model import Applicability, Edit, Fix
from .textpos import LineIndex

Fixer = Callable[[str, dict], Optional[list[Edit]]]
FIXERS: dict[str, Fixer] = {}


def fixer(name: str):
    """Register `func(text, params) -> list[Edit] | None` under `name`."""

    def decorator(func: Fixer) -> Fixer:
        FIXERS[name] = func
        return func

    return decorator


def make_fix(fixer_name: str, message: str, applicability: Applicability = Applicability.SAFE, **params) -> Fix:
    return Fix(applicability=applicability, message=message, fixer=fixer_name, params=tuple(sorted(params.items())))


def build_edits(fix: Fix, text: str) -> Optional[list[Edit]]:
    """Edits for `fix` on `text`, or None when the fixer cannot apply (or crashed)."""
    from .rules import load_all

    load_all()
    func = FIXERS.get(fix.fixer)
    if func is None:
        return None
    try:
        edits = func(text, dict(fix.params))
    except Exception:  # a broken fixer must never take the run down; the finding stays
        return None
    return edits or None


def edit(lines: LineIndex, start: int, end: int, content: str) -> Edit:
    return Edit(content=content, start_offset=start, end_offset=end, start=lines.location(start), end=lines.location(end))


def diff_to_edit(old: str, new: str) -> Optional[list[Edit]]:
    """The smallest single edit that turns `old` into `new` (None when equal)."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return [edit(LineIndex(old), prefix, len(old) - suffix, new[prefix:len(new) - suffix])]


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, int]:
    """Apply non-overlapping edits (later ones that overlap are skipped). Returns (text, applied)."""
    chosen: list[Edit] = []
    last_end = -1
    for e in sorted(edits, key=lambda e: (e.start_offset, e.end_offset)):
        if e.start_offset < last_end or (e.start_offset == last_end and chosen and e.start_offset == e.end_offset == chosen[-1].start_offset):
            continue
        chosen.append(e)
        last_end = e.end_offset
    out = text
    for e in reversed(chosen):
        out = out[: e.start_offset] + e.content + out[e.end_offset:]
    return out, len(chosen)


def parses(kind: str, text: str) -> bool:
    """Does the fixed text still parse? A fix that breaks a file is never written."""
    if kind == "python":
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return False
        return True
    if kind == "dsconfig":
        import json

        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    return True


# -- libcst codemods ------------------------------------------------------------------------

_PARSED: dict = {}  # text -> (module, positions): the last few files, shared by their findings' fixes


def _parse_with_positions(text: str):
    """libcst module and node positions of `text`, or None when libcst cannot parse it.

    Several findings in one file each build their fix; libcst trees are immutable (codemods
    return new trees), so one parse serves them all.
    """
    if text in _PARSED:
        return _PARSED[text]
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        parsed = None
    else:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        parsed = (wrapper.module, wrapper.resolve(PositionProvider))
    if len(_PARSED) >= 4:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[text] = parsed
    return parsed


def codemod_fixer(name: str):
    """Register a libcst codemod `func(module, positions, params) -> new module | None`.

    `positions` maps each libcst node to its CodeRange (1-based line, 0-based column in
    characters), so a codemod finds the node at the finding's position.
    """

    def decorator(func):
        @fixer(name)
        def run(text: str, params: dict) -> Optional[list[Edit]]:
            parsed = _parse_with_positions(text)
            if parsed is None:
                return None
            module, positions = parsed
            new_module = func(module, positions, params)
            if new_module is None:
                return None
            return diff_to_edit(text, new_module.code)

        return func

    return decorator


def node_at(positions, node_type, row: int, column: int, end_row: int = None, end_column: int = None):
    """The libcst node of `node_type` starting at (row, column) (1-based row, 1-based column).

    With an end given, the node must end there too (the innermost such node wins).
    """
    best = None
    for node, where in positions.items():
        if not isinstance(node, node_type):
            continue
        if where.start.line == row and where.start.column == column - 1:
            if end_row is not None and (where.end.line, where.end.column) != (end_row, end_column - 1):
                continue
            best = node
    return best


def keyword_arg(name: str, value):
    """A libcst `name=value` argument written the PEP 8 way (no spaces around `=`)."""
    import libcst as cst

    return cst.Arg(keyword=cst.Name(name), value=value,
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def append_keyword(call, name: str, value):
    """`call` with `name=value` appended, keeping its trailing-comma style."""
    import libcst as cst

    args = list(call.args)
    new_arg = keyword_arg(name, value)
    if args:
        last = args[-1]
        if last.comma is not cst.MaybeSentinel.DEFAULT:
            new_arg = new_arg.with_changes(comma=last.comma)  # `f(a,)` stays `f(a, x=1,)`
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, new_arg])


@fixer("edits")
def _literal_edits(text: str, params: dict) -> Optional[list[Edit]]:
    """Edits computed when the finding was made (JSON and shell fixes): (start, end, content)."""
    lines = LineIndex(text)
    out = []
    for start, end, content, expected in params["edits"]:
        if text[start:end] != expected:  # the file changed since the check: do not guess
            return None
        out.append(edit(lines, start, end, content))
    return out
