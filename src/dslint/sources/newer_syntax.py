"""Is a syntax error only this interpreter's? Source that a newer Python parses (PEP 695 type parameters
and `type` aliases, PEP 701 f-strings that reuse their quotes: Python 3.12) fails in `ast.parse` of an
older one; that is no error in the user's file, and the file is skipped with a line that says why."""
from __future__ import annotations

import re
import sys
from typing import Optional

# PEP 695: `class Box[T]:`, `def first[T](xs: list[T]) -> T:`, `type Pair[T] = tuple[T, T]`
_TYPE_PARAMS = re.compile(r"^\s*(?:(?:async\s+)?def|class)\s+\w+\s*\[|^\s*type\s+\w+\s*(?:\[[^\]]*\]\s*)?=")
# PEP 701: a replacement field that holds the f-string's own quote (`f"{row["name"]}"`)
_REUSED_QUOTE = re.compile(r"""\bf(?:r|R)?(["'])[^"'\n]*\{[^}\n]*\1""", re.IGNORECASE)


def newer_syntax(line: str) -> Optional[str]:
    """The newer Python feature `line` uses, when the running interpreter is older than the one that
    parses it; None otherwise."""
    if sys.version_info >= (3, 12):
        return None
    if _TYPE_PARAMS.match(line):
        return "Python 3.12 type parameters (PEP 695)"
    if _REUSED_QUOTE.search(line):
        return "a Python 3.12 f-string (PEP 701)"
    return None
