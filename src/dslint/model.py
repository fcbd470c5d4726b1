"""Plain data shared by every part of dslint: positions, edits, fixes, findings."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional


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


@dataclass(frozen=True)
class Fix:
    """A fix descriptor: cheap, picklable, cacheable. The edits are built only when asked.

    `fixer` names a function registered in `dslint.fixes` (a libcst codemod for Python, plain
    byte-range edits for JSON and shell) and `params` is what it needs (plain data). Building
    may cost a libcst parse, so it only happens for `fix`, `--diff`, json/sarif output or an
    editor's code action.
    """

    applicability: Applicability
    message: str
    fixer: str
    params: tuple = ()  # tuple of (key, value) pairs so the descriptor stays hashable

    def param(self, key: str, default=None):
        return dict(self.params).get(key, default)


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
    # Set while the finding waits for the project phase (see rules.registry.decider).
    needs: Optional[tuple] = None
    # The fix's edits, built where the file was checked when the run needs them (see
    # fixes.attach_edits): (digest of the text they were built on, edits or None, why or None).
    built: Optional[tuple] = field(default=None, compare=False, repr=False)

    def sort_key(self) -> tuple:
        return (self.path, self.span.start.row, self.span.start.column, self.code)


class UsageError(Exception):
    """A mistake in how dslint was called or configured: printed in one line, exit 2."""
