"""`--output-format pylint`: `path:row: [CODE] message`, the line pylint-reading tools parse."""
from __future__ import annotations

from typing import TextIO

from ..model import Finding


def render_pylint(findings: list[Finding], out: TextIO) -> None:
    for f in findings:
        out.write(f"{f.path}:{f.span.start.row}: [{f.code}] {f.message}\n")
