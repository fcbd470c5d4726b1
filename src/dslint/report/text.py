"""`full` (code frame, underline, fix) and `concise` (one line each) output."""
from __future__ import annotations

import re

import unicodedata
from typing import TextIO

from ..model import Applicability, Finding, Severity

_RESET, _BOLD, _RED, _YELLOW, _CYAN, _BLUE, _GREEN, _DIM = ("\033[0m", "\033[1m", "\033[31m", "\033[33m", "\033[36m",
                                                            "\033[34m", "\033[32m", "\033[2m")
TAB_WIDTH = 4  # the code frame shows a tab as spaces up to the next multiple of 4 (as ruff's frames)


def paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color else text


def code_style(f: Finding) -> str:
    return _RED if f.severity == Severity.ERROR else _YELLOW if f.severity == Severity.WARNING else _CYAN


def marker(f: Finding, unsafe_fixes: bool, color: bool) -> str:
    """ruff's `[*]`: `dslint fix` (with `--unsafe-fixes` when given) would fix this one."""
    if f.fix is None or not (unsafe_fixes or f.fix.applicability == Applicability.SAFE):
        return ""
    return f" [{paint('*', _CYAN, color)}]"


def severity_tag(f: Finding, color: bool) -> str:
    return f" ({paint(f.severity.value, code_style(f), color)})"


def _head(f: Finding, color: bool, unsafe_fixes: bool) -> str:
    where = paint(f"{f.path}:{f.span.start.row}:{f.span.start.column}:", _BOLD, color)
    return (f"{where} {paint(f.code, _BOLD + code_style(f), color)}{marker(f, unsafe_fixes, color)} {f.message}"
            f"{severity_tag(f, color)}")


def render_concise(findings: list[Finding], out: TextIO, *, color: bool = False, unsafe_fixes: bool = False) -> None:
    for f in findings:
        out.write(_head(f, color, unsafe_fixes) + "\n")


def render_full(findings: list[Finding], out: TextIO, source, *, color: bool = False, show_fixes: bool = True,
                unsafe_fixes: bool = False) -> None:
    for f in findings:
        style = code_style(f)
        out.write(f"{paint(f.path, _BOLD, color)}:{f.span.start.row}:{f.span.start.column}: "
                  f"{paint(f.code, _BOLD + style, color)}{marker(f, unsafe_fixes, color)} {paint(f.name, _DIM, color)}"
                  f"{severity_tag(f, color)}\n")
        out.write(f"  {f.message}\n")
        text = source.get(f.path)
        if text is not None:
            _frame(out, text, f, color, style)
        for path, span, note in f.related:
            out.write(f"  {paint('note', _CYAN, color)}: {path}:{span.start.row}:{span.start.column}: {note}\n")
        if show_fixes and f.fix is not None:
            safe = f.fix.applicability == Applicability.SAFE
            label = "fix" if safe else "unsafe fix" if unsafe_fixes else "unsafe fix (--unsafe-fixes)"
            out.write(f"  {paint('help', _GREEN, color)}: {f.fix.message} [{label}]\n")
        out.write("\n")


def char_width(ch: str) -> int:
    """Terminal columns of one character: 2 for wide East Asian forms and emoji, 0 for marks."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def expand_line(line: str) -> tuple[str, list[int]]:
    """The line as the frame shows it (tabs expanded) and, for each character index (and one past
    the end), the display column where it starts: carets are placed by these columns."""
    shown: list[str] = []
    columns: list[int] = []
    col = 0
    for ch in line:
        columns.append(col)
        if ch == "\t":
            step = TAB_WIDTH - col % TAB_WIDTH
            shown.append(" " * step)
            col += step
        else:
            shown.append(ch)
            col += char_width(ch)
    columns.append(col)
    return "".join(shown), columns


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _frame(out: TextIO, text: str, f: Finding, color: bool, style: str) -> None:
    lines = _LINE_BREAK.split(text)  # as Python and the line index count lines: \r\n, \r, \n
    first, last = f.span.start.row, min(f.span.end.row, f.span.start.row + 4)
    if first < 1 or first > len(lines):
        return
    width = len(str(last + 1))
    gutter = paint(" " * width + " |", _BLUE, color)
    out.write(f"{gutter}\n")
    for row in range(max(1, first - 1), min(len(lines), last) + 1):
        line = lines[row - 1].rstrip("\r")
        shown, columns = expand_line(line)
        out.write(f"{paint(str(row).rjust(width) + ' |', _BLUE, color)} {shown}\n")
        if first <= row <= last:
            start = f.span.start.column if row == first else len(line) - len(line.lstrip()) + 1
            end = f.span.end.column if row == f.span.end.row else len(line) + 1
            start_col = columns[min(max(start, 1), len(columns)) - 1]
            end_col = columns[min(max(end, 1), len(columns)) - 1]
            length = max(1, end_col - start_col)
            out.write(f"{gutter} {' ' * start_col}{paint('^' * length, style, color)}\n")
    out.write(f"{gutter}\n")
