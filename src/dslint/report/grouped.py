"""`--output-format grouped`: ruff's grouped output, a file header then `  row:col CODE message`."""
from __future__ import annotations

from itertools import groupby
from typing import TextIO

from ..model import Finding
from .text import _BOLD, code_style, marker, paint, severity_tag


def render_grouped(findings: list[Finding], out: TextIO, *, color: bool = False, unsafe_fixes: bool = False) -> None:
    for path, group in groupby(findings, key=lambda f: f.path):
        group = list(group)
        row_width = max(len(str(f.span.start.row)) for f in group)
        col_width = max(len(str(f.span.start.column)) for f in group)
        out.write(f"{paint(path, _BOLD, color)}:\n")
        for f in group:
            where = f"{str(f.span.start.row).rjust(row_width)}:{str(f.span.start.column).ljust(col_width)}"
            out.write(f"  {where} {paint(f.code, _BOLD + code_style(f), color)}{marker(f, unsafe_fixes, color)} "
                      f"{f.message}{severity_tag(f, color)}\n")
        out.write("\n")
