"""`full` (code frame, underline, fix) and `concise` (one line each) output."""
from __future__ import annotations

from typing import TextIO

from ..model import Applicability, Finding, Severity

_RESET, _BOLD, _RED, _YELLOW, _CYAN, _BLUE, _GREEN, _DIM = ("\033[0m", "\033[1m", "\033[31m", "\033[33m", "\033[36m",
                                                            "\033[34m", "\033[32m", "\033[2m")


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color else text


def _head(f: Finding, color: bool) -> str:
    where = _paint(f"{f.path}:{f.span.start.row}:{f.span.start.column}:", _BOLD, color)
    code_style = _RED if f.severity == Severity.ERROR else _YELLOW
    marker = " [*]" if f.fix is not None and f.fix.applicability == Applicability.SAFE else ""
    return f"{where} {_paint(f.code, _BOLD + code_style, color)}{marker} {f.message}"


def render_concise(findings: list[Finding], out: TextIO, *, color: bool = False) -> None:
    for f in findings:
        out.write(_head(f, color) + "\n")


def render_full(findings: list[Finding], out: TextIO, source, *, color: bool = False, show_fixes: bool = True) -> None:
    for f in findings:
        code_style = _RED if f.severity == Severity.ERROR else _YELLOW
        out.write(f"{_paint(f.path, _BOLD, color)}:{f.span.start.row}:{f.span.start.column}: "
                  f"{_paint(f.code, _BOLD + code_style, color)} {_paint(f.name, _DIM, color)}\n")
        out.write(f"  {f.message}\n")
        text = source.get(f.path)
        if text is not None:
            _frame(out, text, f, color, code_style)
        for path, span, note in f.related:
            out.write(f"  {_paint('note', _CYAN, color)}: {path}:{span.start.row}:{span.start.column}: {note}\n")
        if show_fixes and f.fix is not None:
            label = "fix" if f.fix.applicability == Applicability.SAFE else "unsafe fix (--unsafe-fixes)"
            out.write(f"  {_paint('help', _GREEN, color)}: {f.fix.message} [{label}]\n")
        out.write("\n")


def _frame(out: TextIO, text: str, f: Finding, color: bool, style: str) -> None:
    lines = text.split("\n")
    first, last = f.span.start.row, min(f.span.end.row, f.span.start.row + 4)
    if first < 1 or first > len(lines):
        return
    width = len(str(last + 1))
    gutter = _paint(" " * width + " |", _BLUE, color)
    out.write(f"{gutter}\n")
    for row in range(max(1, first - 1), min(len(lines), last) + 1):
        line = lines[row - 1].rstrip("\r")
        out.write(f"{_paint(str(row).rjust(width) + ' |', _BLUE, color)} {line}\n")
        if first <= row <= last:
            start = f.span.start.column if row == first else len(line) - len(line.lstrip()) + 1
            end = f.span.end.column if row == f.span.end.row else len(line) + 1
            length = max(1, end - start)
            out.write(f"{gutter} {' ' * (start - 1)}{_paint('^' * length, style, color)}\n")
    out.write(f"{gutter}\n")
