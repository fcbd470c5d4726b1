"""Reporters: one module per output format, all reading the same findings."""
from __future__ import annotations

from typing import Optional, TextIO

from ..model import Finding

FORMATS = ("full", "concise", "json", "sarif", "github")


class TextSource:
    """File texts for code frames and lazily built fix edits (read once, on demand)."""

    def __init__(self, texts: Optional[dict] = None):
        self.texts = dict(texts or {})

    def get(self, path: str) -> Optional[str]:
        if path not in self.texts:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
                self.texts[path] = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
            except (OSError, UnicodeDecodeError):
                self.texts[path] = None
        return self.texts[path]


def render(findings: list[Finding], fmt: str, out: TextIO, texts: Optional[dict] = None, *, color: bool = False,
           show_fixes: bool = True) -> None:
    """Write `findings` to `out` in format `fmt` (one of FORMATS)."""
    source = TextSource(texts)
    if fmt == "json":
        from .json_format import render_json

        render_json(findings, out, source)
    elif fmt == "sarif":
        from .sarif import render_sarif

        render_sarif(findings, out)
    elif fmt == "github":
        from .github import render_github

        render_github(findings, out)
    elif fmt == "concise":
        from .text import render_concise

        render_concise(findings, out, color=color)
    else:
        from .text import render_full

        render_full(findings, out, source, color=color, show_fixes=show_fixes)
