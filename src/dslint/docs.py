"""Rule documentation: `rules/DSLnnn.md`, shipped inside the package as `dslint/rules_docs`."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Optional


def docs_folder() -> Optional[Path]:
    here = Path(__file__).resolve().parent
    for candidate in (here / "rules_docs", here.parents[1] / "rules"):
        if candidate.is_dir():
            return candidate
    return None


@lru_cache(maxsize=None)
def rule_doc(code: str) -> Optional[str]:
    folder = docs_folder()
    if folder is None:
        return None
    path = folder / f"{code.upper()}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def rule_summary(code: str) -> Optional[str]:
    """The one-line summary: the first paragraph line after the title."""
    doc = rule_doc(code)
    if not doc:
        return None
    for line in doc.splitlines()[1:]:
        if line.strip() and not line.startswith("#"):
            return line.strip()
    return None


def fenced_blocks(doc: str, section: str) -> list[str]:
    """The fenced code blocks under `## <section>` (used by the catalogue tests)."""
    match = re.search(rf"^##\s+{re.escape(section)}\s*$(.*?)(?=^##\s|\Z)", doc, re.MULTILINE | re.DOTALL)
    if not match:
        return []
    return [m.group(2) for m in re.finditer(r"^```(\w*)[^\n]*\n(.*?)^```", match.group(1), re.MULTILINE | re.DOTALL)]
