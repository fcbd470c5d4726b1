"""gitignore-style patterns (`.gitignore`, `exclude`, per-file settings): pathspec, imported when
a pattern is first matched, so a run on named files needs none."""
from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1)
def pattern_style() -> str:
    """pathspec >= 0.12.? renamed "gitwildmatch" to "gitignore"; accept both versions."""
    import pathspec

    try:
        pathspec.PathSpec.from_lines("gitignore", [])
        return "gitignore"
    except (KeyError, LookupError):
        return "gitwildmatch"


class IgnoreSpec:
    """gitignore-style patterns; one combined regex when no pattern negates (`!x`), which is the
    common case and makes each match one regex call instead of one per pattern."""

    def __init__(self, lines: list[str]):
        import pathspec

        self.spec = pathspec.PathSpec.from_lines(pattern_style(), lines)
        self.combined = None
        patterns = [p for p in self.spec.patterns if getattr(p, "include", None) is not None]
        if all(p.include for p in patterns) and all(getattr(p, "regex", None) is not None for p in patterns):
            try:
                self.combined = re.compile("|".join(f"(?:{p.regex.pattern})" for p in patterns) or r"(?!)")
            except re.error:  # e.g. named groups repeated across patterns in some pathspec versions
                self.combined = None

    def match_file(self, path: str) -> bool:
        if self.combined is not None:
            return self.combined.match(path) is not None
        return self.spec.match_file(path)
