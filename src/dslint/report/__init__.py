"""Reporters: one module per output format, all reading the same findings."""
from __future__ import annotations

from typing import Optional, TextIO

from ..model import Finding

FORMATS = ("full", "concise", "grouped", "pylint", "json", "json-lines", "sarif", "github", "gitlab", "junit")
# The human formats: they get the summary line, `--statistics` as a table and `--show-fixes`.
TEXT_FORMATS = ("full", "concise", "grouped")


class TextSource:
    """File texts for code frames and lazily built fix edits (read once, on demand)."""

    def __init__(self, texts: Optional[dict] = None):
        self.texts = dict(texts or {})

    def get(self, path: str) -> Optional[str]:
        if path not in self.texts:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
                from ..sources.files import decode_text

                self.texts[path] = decode_text(data, path.endswith(".py"))
            except (OSError, UnicodeDecodeError):
                self.texts[path] = None
        return self.texts[path]


def render(findings: list[Finding], fmt: str, out: TextIO, texts: Optional[dict] = None, *, color: bool = False,
           show_fixes: bool = True, unsafe_fixes: bool = False, source: Optional[TextSource] = None) -> None:
    """Write `findings` to `out` in format `fmt` (one of FORMATS); each format's module loads only when used."""
    source = source or TextSource(texts)
    if fmt == "json":
        from .json_format import render_json

        render_json(findings, out, source)
    elif fmt == "json-lines":
        from .json_lines import render_json_lines

        render_json_lines(findings, out, source)
    elif fmt == "sarif":
        from .sarif import render_sarif

        render_sarif(findings, out)
    elif fmt == "github":
        from .github import render_github

        render_github(findings, out)
    elif fmt == "gitlab":
        from .gitlab import render_gitlab

        render_gitlab(findings, out)
    elif fmt == "junit":
        from .junit import render_junit

        render_junit(findings, out)
    elif fmt == "pylint":
        from .pylint import render_pylint

        render_pylint(findings, out)
    elif fmt == "grouped":
        from .grouped import render_grouped

        render_grouped(findings, out, color=color, unsafe_fixes=unsafe_fixes)
    elif fmt == "concise":
        from .text import render_concise

        render_concise(findings, out, color=color, unsafe_fixes=unsafe_fixes)
    else:
        from .text import render_full

        render_full(findings, out, source, color=color, show_fixes=show_fixes, unsafe_fixes=unsafe_fixes)
