"""The "ignore DSLnnn on this line" edit: add `  # noqa: DSLnnn`, or extend an existing list.

The comment must land where the engine reads it (the finding's first or last line) and must not
change what the line means: never after a line-continuation backslash, never inside a string
that runs on to the next line. When no line of the finding can take a comment, no edit.
"""
from __future__ import annotations

import io
import tokenize
from typing import Optional

from .engine.suppression import noqa_list
from .model import Edit
from .textpos import LineIndex


def noqa_edit(text: str, rows: list[int], code: str, kind: str) -> Optional[Edit]:
    """An edit that silences `code` on the first of `rows` (1-based) that can carry a comment."""
    lines = LineIndex(text)
    blocked = _rows_without_comment_room(text) if kind == "python" else set()
    for row in rows:
        if row < 1 or row > len(lines.line_starts) or row in blocked:
            continue
        line = lines.line(row).rstrip("\r")
        body = line.rstrip()
        if body.endswith("\\"):
            continue
        start = lines.line_starts[row - 1]
        existing = noqa_list(line, kind)
        if existing is not None:
            if code.upper() in {c.strip().upper() for c in existing.group("codes").split(",")}:
                return None  # already there: nothing to add
            at = start + existing.end()
            return Edit(f", {code}", at, at, lines.location(at), lines.location(at))
        at, end = start + len(body), start + len(line)  # trailing blanks are replaced
        return Edit(f"  # noqa: {code}" if body else f"# noqa: {code}", at, end, lines.location(at), lines.location(end))
    return None


def _rows_without_comment_room(text: str) -> set[int]:
    """Rows whose end lies inside a multi-line string: a comment there would become text."""
    blocked: set[int] = set()
    fstring_starts: list[int] = []  # Python 3.12+ splits f-strings into several tokens
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING:
                blocked.update(range(token.start[0], token.end[0]))
            elif token.type == getattr(tokenize, "FSTRING_START", -1):
                fstring_starts.append(token.start[0])
            elif token.type == getattr(tokenize, "FSTRING_END", -1) and fstring_starts:
                blocked.update(range(fstring_starts.pop(), token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set()  # broken source: only the engine's own findings, which noqa does not silence
    return blocked
