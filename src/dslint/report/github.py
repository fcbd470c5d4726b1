"""`--output-format github`: GitHub Actions workflow annotations."""
from __future__ import annotations

from typing import TextIO

from ..model import Finding, Severity


def _escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def render_github(findings: list[Finding], out: TextIO) -> None:
    for f in findings:
        level = "error" if f.severity == Severity.ERROR else "warning" if f.severity == Severity.WARNING else "notice"
        out.write(f"::{level} title={_escape(f'dslint ({f.code})', True)},file={_escape(f.path, True)},"
                  f"line={f.span.start.row},col={f.span.start.column},endLine={f.span.end.row},"
                  f"endColumn={f.span.end.column}::{_escape(f'{f.path}:{f.span.start.row}:{f.span.start.column}: {f.code} {f.message}')}\n")
