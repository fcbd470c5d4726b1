"""From dslint's findings and edits to LSP diagnostics and text edits, and back.

dslint counts columns in characters (code points), 1-based; LSP counts in the negotiated
position encoding (UTF-16 code units unless the client offered UTF-8 or UTF-32), 0-based.
A character outside the Basic Multilingual Plane is one dslint column and two UTF-16 units.
"""
from __future__ import annotations

from typing import Optional

from lsprotocol import types

from .model import Applicability, Edit, Finding, Fix, Location, Severity
from .rules.registry import RULES
from .textpos import LineIndex

SOURCE = "dslint"
FIX_ALL_KIND = "source.fixAll.dslint"
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.INFO: types.DiagnosticSeverity.Information}


def units(text: str, encoding: str) -> int:
    """The length of `text` in the client's position units."""
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_position(lines: LineIndex, location: Location, encoding: str) -> types.Position:
    """A 1-based (row, character column) as an LSP position in `encoding` units."""
    row = max(1, min(location.row, len(lines.line_starts)))
    line = lines.line(row)
    return types.Position(line=row - 1, character=units(line[: max(0, location.column - 1)], encoding))


def to_range(lines: LineIndex, start: Location, end: Location, encoding: str) -> types.Range:
    return types.Range(start=to_position(lines, start, encoding), end=to_position(lines, end, encoding))


def fix_to_data(fix: Optional[Fix]) -> Optional[dict]:
    """A fix descriptor as plain JSON (it travels to the editor in `Diagnostic.data` and back)."""
    if fix is None:
        return None
    return {"applicability": fix.applicability.value, "message": fix.message, "fixer": fix.fixer,
            "params": [[key, value] for key, value in fix.params]}


def fix_from_data(data: object) -> Optional[Fix]:
    """The fix descriptor back from `Diagnostic.data["fix"]`; None for anything malformed."""
    if not isinstance(data, dict):
        return None
    try:
        params = tuple((str(key), _tuples(value)) for key, value in data.get("params", []))
        return Fix(applicability=Applicability(data["applicability"]), message=str(data["message"]),
                   fixer=str(data["fixer"]), params=params)
    except (KeyError, TypeError, ValueError):
        return None


def _tuples(value):
    """JSON turned the descriptor's tuples into lists; the descriptor must stay hashable."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def rule_url(code: str) -> Optional[str]:
    rule = RULES.get(code)
    return rule.url if rule else None


def to_diagnostic(finding: Finding, lines: LineIndex, encoding: str, version: Optional[int],
                  related: Optional[list] = None) -> types.Diagnostic:
    """An LSP diagnostic for a finding in the document whose text `lines` indexes."""
    url = rule_url(finding.code)
    return types.Diagnostic(
        range=to_range(lines, finding.span.start, finding.span.end, encoding),
        message=finding.message,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        related_information=related or None,
        data={"fix": fix_to_data(finding.fix), "name": finding.name, "version": version},
    )


def to_text_edits(edits: list[Edit], lines: LineIndex, encoding: str) -> list[types.TextEdit]:
    return [types.TextEdit(range=to_range(lines, e.start, e.end, encoding), new_text=e.content)
            for e in sorted(edits, key=lambda e: e.start_offset)]
