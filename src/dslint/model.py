"""Plain data shared by every part of dslint: positions, edits, fixes, findings."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable, Optional


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Applicability(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Location:
    """1-based row and column; the column counts characters, not bytes (as ruff does)."""

    row: int
    column: int


@dataclass(frozen=True)
class Span:
    """A range in a text file: positions for humans, character offsets for edits."""

    start: Location
    end: Location
    start_offset: int = 0
    end_offset: int = 0


@dataclass(frozen=True)
class Edit:
    """Replace text[start_offset:end_offset] (character offsets) by content."""

    content: str
    start_offset: int
    end_offset: int
    start: Location
    end: Location


@dataclass
class Fix:
    """A fix descriptor. The edits are built lazily: `build(text) -> list[Edit] | None`.

    Building may be expensive (a libcst parse), so it only runs for `fix`, `--diff`,
    json/sarif output or an editor's code action. A builder returns None when the fix
    cannot be applied to this text after all.
    """

    applicability: Applicability
    message: str
    build: Callable[[str], Optional[list[Edit]]]
    _edits: Optional[list[Edit]] = field(default=None, repr=False, compare=False)
    _built: bool = field(default=False, repr=False, compare=False)

    def edits(self, text: str) -> Optional[list[Edit]]:
        if not self._built:
            try:
                self._edits = self.build(text)
            except Exception:  # a broken codemod must never lose the finding itself
                self._edits = None
            self._built = True
        return self._edits


@dataclass
class Finding:
    code: str
    message: str
    path: str  # as the user gave it (relative stays relative)
    span: Span
    severity: Severity = Severity.WARNING
    name: str = ""
    fix: Optional[Fix] = None
    # Related places (the config key, the launch line) that explain the finding: (path, span, note).
    related: list[tuple[str, Span, str]] = field(default_factory=list)

    def sort_key(self) -> tuple:
        return (self.path, self.span.start.row, self.span.start.column, self.code)


class UsageError(Exception):
    """A mistake in how dslint was called or configured: printed in one line, exit 2."""
